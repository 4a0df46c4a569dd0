import { SpindleError } from '@spindle/contracts';
import type { McpServerConfig } from './mcp-server-config';

/**
 * Which MCP servers a definition may name. A definition comes from any API client, and a stdio
 * server is a process the runner spawns, so naming one is running code on the runner; an HTTP
 * URL is a request from inside the cluster. The operator therefore allows them explicitly:
 * `SPINDLE_MCP_ALLOW` is a comma-separated list of exact commands (`node`, `/opt/mcp/search`)
 * and URL prefixes (`https://mcp.internal/`), or `*` for any. Unset, no server is allowed.
 */
export interface McpPolicy {
  /** Undefined when allowed; otherwise why not, for the node's error message. */
  refusal(server: McpServerConfig): string | undefined;
}

export const allowAllMcpServers: McpPolicy = { refusal: () => undefined };

export function mcpPolicyFrom(allow: string | undefined): McpPolicy {
  const entries = (allow ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.includes('*')) return allowAllMcpServers;
  const urls = entries.filter((e) => /^https?:\/\//.test(e)).map((e) => new URL(e));
  const commands = new Set(entries.filter((e) => !/^https?:\/\//.test(e)));
  return {
    refusal(server) {
      if (server.command !== undefined) {
        return commands.has(server.command) ? undefined : `command "${server.command}" is not allowed on this runner (SPINDLE_MCP_ALLOW)`;
      }
      const url = new URL(server.url ?? '');
      // Compared by origin, then path: a bare string prefix would let `https://a.com.evil/` pass for `https://a.com`.
      const allowed = urls.some((u) => u.origin === url.origin && url.pathname.startsWith(u.pathname));
      return allowed ? undefined : `URL ${url.origin}${url.pathname} is not allowed on this runner (SPINDLE_MCP_ALLOW)`;
    },
  };
}

/** The policy of `SPINDLE_MCP_ALLOW`, read once per process. */
export function assertAllowed(policy: McpPolicy, server: McpServerConfig): void {
  const why = policy.refusal(server);
  if (why) throw new SpindleError('tool_failed', `MCP server "${server.name}": ${why}`);
}
