import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { SpindleError } from '@spindle/contracts';
import { egressRefusalIn } from '@spindle/egress';
import { describeServer, type McpServerConfig } from './mcp-server-config';

/** Connecting (spawn or first request, plus `initialize`) and listing tools each get this long. */
export const MCP_CONNECT_TIMEOUT_MS = 10_000;
const STDERR_TAIL_CHARS = 500;

export interface McpTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** One live client of one MCP server, open for the rest of a run. */
export interface McpConnection {
  readonly client: Client;
  readonly tools: McpTool[];
  /** False once the transport closed (e.g. the server process exited). */
  readonly open: boolean;
  close(): Promise<void>;
}

/**
 * Connects to a stdio or streamable HTTP server and lists its tools (every page). A failure
 * is a `tool_failed` error naming the server, with the tail of a stdio server's stderr; an HTTP
 * server at an internal address the egress guard refuses is `egress_refused`.
 *
 * Stdio servers get the SDK's default environment (HOME, LOGNAME, PATH, SHELL, TERM, USER), not
 * the runner's: provider keys, NATS_URL and DATABASE_URL must not reach a process that a
 * definition chose. Their stderr is piped and kept short, so it neither mixes into the runner's
 * JSON log nor blocks the child when nobody reads it.
 */
export async function connectMcpServer(
  server: McpServerConfig,
  signal: AbortSignal,
  fetch: typeof globalThis.fetch,
): Promise<McpConnection> {
  const stderr = { tail: '' };
  const transport = createTransport(server, stderr, fetch);
  const client = new Client({ name: 'spindle-runner', version: '0.1.0' });
  let open = true;
  client.onclose = () => {
    open = false;
  };
  // The SDK reports transport errors here too; the failing request already rejects with them.
  client.onerror = () => undefined;
  const options = { timeout: MCP_CONNECT_TIMEOUT_MS, signal };
  try {
    await client.connect(transport, options);
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, options);
      tools.push(
        ...page.tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), inputSchema: t.inputSchema })),
      );
      cursor = page.nextCursor;
    } while (cursor);
    return {
      client,
      tools,
      get open() {
        return open;
      },
      close: () => closeQuietly(client, transport),
    };
  } catch (error) {
    await closeQuietly(client, transport);
    if (signal.aborted) throw signal.reason ?? error;
    const detail = error instanceof Error ? error.message : String(error);
    const tail = stderr.tail.trim();
    throw new SpindleError(
      // An internal target the operator did not allow: the guard's code, not a network failure.
      egressRefusalIn(error) ? 'egress_refused' : 'tool_failed',
      `${describeServer(server)}: could not connect and list tools: ${detail}${tail ? ` (stderr: ${tail})` : ''}`,
    );
  }
}

function createTransport(server: McpServerConfig, stderr: { tail: string }, fetch: typeof globalThis.fetch): Transport {
  // Every request of the transport (POSTs, the event stream, the session's DELETE) goes through the guard's fetch.
  if (server.url !== undefined) return new StreamableHTTPClientTransport(new URL(server.url), { fetch });
  if (server.command === undefined) throw new SpindleError('tool_failed', `MCP server "${server.name}" has neither command nor url`);
  const transport = new StdioClientTransport({ command: server.command, args: [...(server.args ?? [])], stderr: 'pipe' });
  (transport.stderr as Readable | null)?.on('data', (chunk: Buffer) => {
    stderr.tail = (stderr.tail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
  });
  return transport;
}

async function closeQuietly(client: Client, transport: Transport): Promise<void> {
  // An HTTP server keeps a session until told to end it; a stdio server ends with its process.
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) await transport.terminateSession().catch(() => undefined);
  await client.close().catch(() => undefined);
}
