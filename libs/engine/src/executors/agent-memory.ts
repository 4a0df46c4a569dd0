import { describeIssues, fileRefSchema, SpindleError, zodFieldIssues } from '@spindle/contracts';
import { z } from 'zod';
import type { ChatMessage } from '../ports';
import { MAX_CALL_ATTACHMENTS } from './attachments';

/** The most messages a remembered conversation may hold (the node's `memory_max_messages` is at most this). */
const MAX_REMEMBERED = 1_000;

const toolCallSchema = z.strictObject({ id: z.string(), name: z.string(), arguments: z.record(z.string(), z.unknown()) });
// Files stay in the conversation by reference, so a thread's next run sends them again.
const attachmentsSchema = z.array(fileRefSchema).max(MAX_CALL_ATTACHMENTS).optional();
const chatMessageSchema = z.discriminatedUnion('role', [
  z.strictObject({ role: z.literal('user'), content: z.string(), attachments: attachmentsSchema }),
  z.strictObject({ role: z.literal('assistant'), content: z.string(), toolCalls: z.array(toolCallSchema).optional() }),
  z.strictObject({
    role: z.literal('tool'),
    toolCallId: z.string(),
    toolName: z.string(),
    content: z.string(),
    isError: z.boolean().optional(),
    attachments: attachmentsSchema,
  }),
]);
const conversationSchema = z.array(chatMessageSchema).max(MAX_REMEMBERED);

/**
 * The conversation an agent with a `memory_key` goes on from: the messages under that state key,
 * checked (state can be written by anyone who starts or patches a run), or none when it is unset.
 */
export function rememberedMessages(nodeId: string, key: string, state: Readonly<Record<string, unknown>>): ChatMessage[] {
  const value = Object.hasOwn(state, key) ? state[key] : undefined;
  if (value === undefined || value === null) return [];
  const parsed = conversationSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new SpindleError(
    'validation_failed',
    `agent "${nodeId}": state.${key} is not a conversation (a list of user, assistant and tool messages): ` +
      describeIssues(zodFieldIssues(parsed.error.issues.slice(0, 1), { root: key, whole: key })),
  );
}
