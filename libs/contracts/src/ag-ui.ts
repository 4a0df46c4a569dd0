import { z } from 'zod';

/**
 * AG-UI 1.0's `RunAgentInput`, as far as Spindle reads it: the conversation, the state, and the
 * answers to the interrupts of an earlier run. Unknown fields pass (the protocol grows).
 */
const message = z.looseObject({
  id: z.string().max(256),
  role: z.string().max(32),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() })), z.null()]).optional(),
});

export const agUiResumeEntrySchema = z.looseObject({
  interruptId: z.string().min(1).max(600),
  status: z.enum(['resolved', 'cancelled']),
  payload: z.unknown().optional(),
});

export const agUiRunInputSchema = z.looseObject({
  threadId: z.string().min(1).max(256),
  runId: z.string().min(1).max(256),
  messages: z.array(message).max(10_000),
  state: z.record(z.string(), z.unknown()).optional(),
  tools: z.array(z.unknown()).optional(),
  context: z.array(z.unknown()).optional(),
  forwardedProps: z.unknown().optional(),
  resume: z.array(agUiResumeEntrySchema).max(64).optional(),
});
export type AgUiRunInput = z.infer<typeof agUiRunInputSchema>;
