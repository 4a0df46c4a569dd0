import { z } from 'zod';

/**
 * A JSON-RPC 2.0 message as the standard protocols the gateway speaks carry them (MCP; A2A):
 * the one envelope both parse with (`parseJsonRpcRequest` for a call), each answering in its
 * own errors (`protocolErrorOf`).
 */
const requestId = z.union([z.string(), z.number().int()]);

/** JSON-RPC 2.0's own error codes (MCP's and A2A's are these and their own). */
export const JSON_RPC_ERROR = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
} as const;

export const jsonRpcMessageSchema = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: requestId.optional().describe('Absent on a notification.'),
    method: z.string().optional().describe('A request or a notification.'),
    params: z.record(z.string(), z.unknown()).optional(),
    result: z.record(z.string(), z.unknown()).optional().describe('An answer.'),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional().describe('A refusal.'),
  })
  .describe('One JSON-RPC 2.0 message: a request, a notification, a result or an error.');
export type JsonRpcMessage = z.infer<typeof jsonRpcMessageSchema>;

/** A call: a message with a method and an id (a notification has no id, so nothing to answer). */
export interface JsonRpcRequest {
  id: string | number;
  method: string;
  params?: Record<string, unknown>;
}

/** The call a body is, or why it is none (what an `invalid request` error says). */
export function parseJsonRpcRequest(body: unknown): { ok: true; request: JsonRpcRequest } | { ok: false; reason: string } {
  const parsed = jsonRpcMessageSchema.safeParse(body);
  if (!parsed.success) {
    const reason = parsed.error.issues.map((i) => `${i.path.join('.') || '(message)'}: ${i.message}`).join('; ');
    return { ok: false, reason: `not a JSON-RPC 2.0 message: ${reason}` };
  }
  const { id, method, params } = parsed.data;
  if (method === undefined) return { ok: false, reason: 'a request needs a method' };
  if (id === undefined) return { ok: false, reason: 'a request needs an id (string or number)' };
  return { ok: true, request: { id, method, ...(params !== undefined && { params }) } };
}

/** What JSON-RPC answers a body that is not JSON at all: no id can be read from it. */
export const jsonRpcParseError = () => ({
  jsonrpc: '2.0' as const,
  id: null,
  error: { code: JSON_RPC_ERROR.parseError, message: 'Parse error' },
});
