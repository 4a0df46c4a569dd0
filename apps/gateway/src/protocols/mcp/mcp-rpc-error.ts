/**
 * A JSON-RPC error a handler throws: the SDK sends its `code`, `message` and `data` as they are.
 * (The SDK's McpError puts "MCP error <code>:" into its message, and the client's McpError adds it
 * again, so a client read "MCP error -32602: MCP error -32602: …".)
 */
export class McpRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'McpRpcError';
  }
}
