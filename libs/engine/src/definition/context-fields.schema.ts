import { modelContextWindow, truncationStrategySchema } from '@spindle/contracts';
import { z } from 'zod';
import { DEFAULT_RESERVE_OUTPUT_TOKENS } from '../context/context-budget';

/** The largest input budget accepted: above every model window in the table. */
const MAX_BUDGET_TOKENS = 10_000_000;
const priority = z.number().int().min(0).max(100).optional();
const modelRef = z.string().regex(/^[a-z][a-z0-9-]*:.+$/, 'must be "provider:model", e.g. "offline:echo" or "openai:gpt-4o-mini"');

/**
 * An llm or agent node's context budget (see context/context-budget.ts): the prompt fits in
 * min(`max_input_tokens`, the model's window − `reserve_output_tokens`); over it, parts are cut
 * lowest `priorities` first. The system prompt and the newest message are never cut, so they take
 * no priority.
 */
export const contextBudgetSchema = z.strictObject({
  max_input_tokens: z.number().int().positive().max(MAX_BUDGET_TOKENS).optional(),
  reserve_output_tokens: z.number().int().positive().max(MAX_BUDGET_TOKENS).optional(),
  strategy: truncationStrategySchema.optional(),
  priorities: z.strictObject({ retrieval: priority, tool_results: priority, state_fields: priority, history: priority }).optional(),
});

/**
 * How an agent's remembered conversation (`memory_key`) is compacted when written back: past
 * `max_messages` (defaults to `memory_max_messages`) or `max_tokens`, the oldest whole turns are
 * dropped, or with `summarize` replaced by one message a model writes about them.
 */
export const memorySchema = z.strictObject({
  max_messages: z.number().int().min(2).max(1_000).optional(),
  max_tokens: z.number().int().min(64).max(MAX_BUDGET_TOKENS).optional(),
  summarize: z.strictObject({ model: modelRef, prompt: z.string().min(1).max(20_000).optional() }).optional(),
});

/** The reserve must leave room in the model's window (checked where the table knows the model). */
export function checkContextBudget(
  node: { model?: string; context?: z.infer<typeof contextBudgetSchema>; memory_key?: string; memory?: unknown },
  ctx: z.RefinementCtx,
): void {
  const window = node.model === undefined ? undefined : modelContextWindow(node.model);
  const reserve = node.context?.reserve_output_tokens ?? DEFAULT_RESERVE_OUTPUT_TOKENS;
  if (node.context && window !== undefined && reserve >= window)
    ctx.addIssue({
      code: 'custom',
      path: ['context', 'reserve_output_tokens'],
      message: `must be less than the context window of "${node.model}" (${window} tokens)`,
    });
  if (node.memory !== undefined && node.memory_key === undefined)
    ctx.addIssue({ code: 'custom', path: ['memory'], message: 'memory compacts the conversation under memory_key: set memory_key too' });
}
