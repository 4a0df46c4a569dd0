/**
 * Context windows (input + output tokens a model takes in one call), keyed like the price table:
 * `provider:model`, or `provider:*` for every model of a provider without its own entry. Here, not
 * in libs/llm, because the engine plans prompts against them and depends on contracts alone.
 * Figures are the providers' published windows as of 2025-10.
 */
export const MODEL_CONTEXT_WINDOWS: Readonly<Record<string, number>> = Object.freeze({
  'openai:gpt-4o': 128_000,
  'openai:gpt-4o-mini': 128_000,
  'openai:gpt-4.1': 1_047_576,
  'openai:gpt-4.1-mini': 1_047_576,
  'openai:gpt-4.1-nano': 1_047_576,
  'anthropic:claude-sonnet-4-5': 200_000,
  'anthropic:claude-haiku-4-5': 200_000,
  'anthropic:claude-3-5-haiku-latest': 200_000,
  // The offline models take anything; a window keeps budgets on them as real as on a provider.
  'offline:*': 128_000,
});

/** The model's window, or undefined for a model the table does not know (a budget then needs `max_input_tokens`). */
export function modelContextWindow(model: string): number | undefined {
  if (Object.hasOwn(MODEL_CONTEXT_WINDOWS, model)) return MODEL_CONTEXT_WINDOWS[model];
  const provider = model.slice(0, model.indexOf(':'));
  const wildcard = `${provider}:*`;
  return Object.hasOwn(MODEL_CONTEXT_WINDOWS, wildcard) ? MODEL_CONTEXT_WINDOWS[wildcard] : undefined;
}
