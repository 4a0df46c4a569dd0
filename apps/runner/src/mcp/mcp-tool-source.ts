import { PublicError, SpindleError } from '@spindle/contracts';
import { egressRefusalIn } from '@spindle/egress';
import type { ToolContext, ToolSpec } from '@spindle/engine';
import { connectMcpServer, type McpConnection } from './mcp-connection';
import { assertAllowed, type McpPolicy } from './mcp-policy';
import { connectionKey, describeServer, type McpServerConfig } from './mcp-server-config';

/** Providers accept tool names of 1–64 characters from this set. */
const PROVIDER_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_ERROR_CHARS = 2000;
/** A call is bounded by the node's signal (its timeout, the run's), not by the SDK's 60 s default. */
const NO_SDK_TIMEOUT_MS = 2_147_483_647;

interface Route {
  key: string;
  server: McpServerConfig;
  tool: string;
}

export interface McpToolSourceOptions {
  policy: McpPolicy;
  /** HTTP servers are reached with this: the egress guard's `fetch`. */
  fetch: typeof fetch;
  /** A tool left out because its prefixed name does not fit providers' rules. */
  onSkippedTool?: (server: string, tool: string, reason: string) => void;
  connect?: (server: McpServerConfig, signal: AbortSignal, fetch: typeof globalThis.fetch) => Promise<McpConnection>;
}

/**
 * The MCP servers of one run: one connection per server name and transport config, opened on
 * the first agent that names it and reused by later ones (a loop re-running an agent does not
 * reconnect), all closed by `close()` when the run ends. Exposed names are routed per node, so
 * two agents may each call a server "search" that is a different server.
 */
export class McpToolSource {
  private readonly connections = new Map<string, Promise<McpConnection>>();
  private readonly routes = new Map<string, Map<string, Route>>();
  private closed = false;

  constructor(private readonly options: McpToolSourceOptions) {}

  async discover(servers: readonly McpServerConfig[], ctx: { nodeId: string; signal: AbortSignal }): Promise<ToolSpec[]> {
    const routes = new Map<string, Route>();
    const specs: ToolSpec[] = [];
    for (const server of servers) {
      const key = connectionKey(server);
      const connection = await this.connection(server, key, ctx.signal);
      for (const tool of connection.tools) {
        // `.` and `/` are valid MCP tool names but not provider ones; they become `_`.
        const name = `${server.name}__${tool.name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
        const reason = !PROVIDER_TOOL_NAME.test(name)
          ? 'its prefixed name is longer than 64 characters'
          : routes.has(name)
            ? `"${name}" is already taken`
            : undefined;
        if (reason) {
          this.options.onSkippedTool?.(server.name, tool.name, reason);
          continue;
        }
        routes.set(name, { key, server, tool: tool.name });
        specs.push({ name, description: tool.description ?? `${tool.name} (MCP server ${server.name})`, inputSchema: tool.inputSchema });
      }
    }
    this.routes.set(ctx.nodeId, routes);
    return specs;
  }

  /** Whether `name` is an MCP tool discovered for the node, so `call` should get it. */
  handles(name: string, nodeId: string): boolean {
    return this.routes.get(nodeId)?.has(name) ?? false;
  }

  async call(name: string, args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    const route = this.routes.get(ctx.nodeId)?.get(name);
    if (!route) throw new SpindleError('tool_not_found', `no MCP tool "${name}" was discovered for node "${ctx.nodeId}"`);
    const connection = await this.connections.get(route.key);
    if (!connection?.open) throw new SpindleError('tool_failed', `${describeServer(route.server)} is no longer connected`);
    let result: Awaited<ReturnType<McpConnection['client']['callTool']>>;
    try {
      result = await connection.client.callTool({ name: route.tool, arguments: args }, undefined, {
        signal: ctx.signal,
        timeout: NO_SDK_TIMEOUT_MS,
      });
    } catch (error) {
      if (ctx.signal.aborted) throw ctx.signal.reason ?? error;
      // A JSON-RPC error (unknown tool, bad params) is the server's answer: the model may act on it.
      if (error instanceof Error && error.name === 'McpError') throw new PublicError(error.message.slice(0, MAX_ERROR_CHARS));
      const code = egressRefusalIn(error) ? 'egress_refused' : 'tool_failed';
      throw new SpindleError(code, `${describeServer(route.server)}: ${error instanceof Error ? error.message : String(error)}`);
    }
    return observation(route, result);
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.connections.values()];
    this.connections.clear();
    this.routes.clear();
    await Promise.all(
      all.map((c) =>
        c.then(
          (conn) => conn.close(),
          () => undefined,
        ),
      ),
    );
  }

  private connection(server: McpServerConfig, key: string, signal: AbortSignal): Promise<McpConnection> {
    if (this.closed) throw new SpindleError('tool_failed', 'the run has ended; its MCP connections are closed');
    const existing = this.connections.get(key);
    if (existing) {
      // A server that exited mid-run is connected again rather than failing every later agent.
      return existing.then((c) => (c.open ? c : this.reconnect(server, key, signal)));
    }
    return this.reconnect(server, key, signal);
  }

  private reconnect(server: McpServerConfig, key: string, signal: AbortSignal): Promise<McpConnection> {
    assertAllowed(this.options.policy, server);
    const pending = (this.options.connect ?? connectMcpServer)(server, signal, this.options.fetch);
    this.connections.set(key, pending);
    // A failed attempt is forgotten, so a later agent (or a retried run) tries again.
    pending.catch(() => this.connections.get(key) === pending && this.connections.delete(key));
    return pending;
  }
}

/** A tool result as the model's observation: structured content, else the text, else the content list. */
function observation(route: Route, result: Record<string, unknown>): unknown {
  const content = Array.isArray(result.content) ? (result.content as Array<{ type?: unknown; text?: unknown }>) : [];
  const text = content
    .filter((c) => c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text as string)
    .join('\n');
  if (result.isError === true) {
    throw new PublicError((text || `MCP tool "${route.tool}" of server "${route.server.name}" failed`).slice(0, MAX_ERROR_CHARS));
  }
  if (result.structuredContent !== undefined) return result.structuredContent;
  if ('toolResult' in result) return result.toolResult;
  return content.every((c) => c.type === 'text') ? text : content;
}
