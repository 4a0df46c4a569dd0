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
  /** `{ ms }`: waits (abortable), for demos of long steps; writes nothing. */
  sleep: ({ args, signal }) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, Math.min(Number(args.ms ?? 0), 600_000));
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(signal.reason);
        },
        { once: true },
      );
    }),
  /** `{ key, by? }` → increments `state[key]`. */
  increment: ({ args, state }) => {
    const key = String(args.key ?? 'counter');
    return { [key]: Number(state[key] ?? 0) + Number(args.by ?? 1) };
  },
};
