import type { RegisteredFunction } from '@spindle/engine';

/** Functions every runner has, for demos and benchmarks; plugins add more by name. */
export const builtinFunctions: Record<string, RegisteredFunction> = {
  /** Does nothing; measures orchestration overhead. */
  noop: () => undefined,
  /** `{ text }` → `{ word_count }`. */
  word_count: ({ args, state }) => {
    const text = String(args.text ?? state.text ?? '');
    return { word_count: text.split(/\s+/).filter(Boolean).length };
  },
  /** `{ key, by? }` → increments `state[key]`. */
  increment: ({ args, state }) => {
    const key = String(args.key ?? 'counter');
    return { [key]: Number(state[key] ?? 0) + Number(args.by ?? 1) };
  },
};
