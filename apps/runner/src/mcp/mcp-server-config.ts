/** An agent node's `mcp_servers` entry, as the engine passes it to `ToolPort.discover`. */
export interface McpServerConfig {
  readonly name: string;
  readonly command?: string;
  readonly args?: readonly string[];
  readonly url?: string;
}

/** Two entries with the same key share one connection within a run. */
export function connectionKey(server: McpServerConfig): string {
  return JSON.stringify([server.name, server.command ?? null, server.args ?? [], server.url ?? null]);
}

/** How the server is named in messages: never its args or the URL's query, which may carry a token. */
export function describeServer(server: McpServerConfig): string {
  if (server.command !== undefined) return `MCP server "${server.name}" (command ${server.command})`;
  const url = new URL(server.url ?? '');
  return `MCP server "${server.name}" (${url.origin}${url.pathname})`;
}
