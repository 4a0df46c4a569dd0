import { modelContextWindow, type ContextCutKind, type TruncationStrategy } from '@spindle/contracts';

/** A node's `context` field (node.schemas.ts): its budget, as written. */
export interface ContextConfig {
  max_input_tokens?: number;
  reserve_output_tokens?: number;
  strategy?: TruncationStrategy;
  priorities?: Partial<Record<PriorityName, number>>;
}
export type PriorityName = 'retrieval' | 'tool_results' | 'state_fields' | 'history';

/** What a model call's prompt must fit, and how to make it fit. */
export interface ContextBudget {
  /** Most input tokens the prompt may count. */
  limit: number;
  strategy: TruncationStrategy;
  /** The kinds of part that may be cut, in the order they are cut (lowest priority first). */
  cutOrder: ContextCutKind[];
}

/** Tokens kept free for the reply unless the node says otherwise. */
export const DEFAULT_RESERVE_OUTPUT_TOKENS = 1_024;
/** Lower is cut first: old turns, then tool output, then retrieved chunks, then the node's own state fields. */
export const DEFAULT_PRIORITIES: Readonly<Record<PriorityName, number>> = { history: 1, tool_results: 2, retrieval: 3, state_fields: 4 };
const KIND: Record<PriorityName, ContextCutKind> = {
  history: 'history',
  tool_results: 'tool_result',
  retrieval: 'retrieval',
  state_fields: 'state_field',
};

/**
 * The budget of a call to `model`: min(`max_input_tokens`, the model's window − the reserve).
 * A model the window table does not know has no budget unless the node sets `max_input_tokens`.
 * Ties in priority keep the default order.
 */
export function contextBudget(model: string, config: ContextConfig = {}): ContextBudget | undefined {
  const window = modelContextWindow(model);
  const reserve = config.reserve_output_tokens ?? DEFAULT_RESERVE_OUTPUT_TOKENS;
  const limits = [config.max_input_tokens, window === undefined ? undefined : window - reserve].filter((n) => n !== undefined);
  if (limits.length === 0) return undefined;
  const priority = { ...DEFAULT_PRIORITIES, ...config.priorities };
  const names = (Object.keys(DEFAULT_PRIORITIES) as PriorityName[]).sort(
    (a, b) => priority[a] - priority[b] || DEFAULT_PRIORITIES[a] - DEFAULT_PRIORITIES[b],
  );
  return { limit: Math.min(...limits), strategy: config.strategy ?? 'sentence', cutOrder: names.map((n) => KIND[n]) };
}
