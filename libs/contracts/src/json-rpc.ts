import { z } from 'zod';

/**
 * A JSON-RPC 2.0 message as the standard protocols the gateway speaks carry them (MCP; A2A):
 * documented here, and checked by each protocol's own server, which answers in its own errors.
 */
const requestId = z.union([z.string(), z.number().int()]);

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
