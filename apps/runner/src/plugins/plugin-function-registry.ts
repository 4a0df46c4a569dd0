import { SpindleError } from '@spindle/contracts';
import type { FunctionRegistry, RegisteredFunction } from '@spindle/engine';
import { callWithPolicy } from './call-policy';
import type { CompiledInput, CompiledOutput } from './input-schema';
import type { ParsedEntry, PluginFunctionDefinition } from './plugin-definition';

export interface LoadedFunction {
  /** `built-in` or the plugin path as configured, for error messages. */
  origin: string;
  entry: ParsedEntry;
  input: CompiledInput;
  /** The definition's `output`, when it has one: the returned delta is checked against it. */
  output?: CompiledOutput;
  /** Computes only from its arguments and state: runs without a durability barrier. */
  pure?: boolean;
}

/**
 * The engine's `FunctionRegistry` over built-ins and plugin functions. Each registered function
 * validates its arguments once, then runs under its timeout and retry policy.
 */
export class PluginFunctionRegistry implements FunctionRegistry {
  private readonly wrapped = new Map<string, RegisteredFunction>();
  private readonly pure = new Set<string>();

  constructor(functions: ReadonlyMap<string, LoadedFunction>, fetch: typeof globalThis.fetch) {
    for (const [name, loaded] of functions) {
      this.wrapped.set(name, wrap(name, loaded, fetch));
      if (loaded.pure) this.pure.add(name);
    }
  }

  get(name: string): RegisteredFunction | undefined {
    return this.wrapped.get(name);
  }

  isPure(name: string): boolean {
    return this.pure.has(name);
  }

  names(): string[] {
    return [...this.wrapped.keys()];
  }
}

function wrap(name: string, { origin, entry, input, output }: LoadedFunction, fetch: typeof globalThis.fetch): RegisteredFunction {
  // The runner's own functions honour their signal: no policy to wrap them in, and no cost per call.
  if (origin === 'built-in' && entry.form === 'plain') return entry.run as RegisteredFunction;
  const subject = `function "${name}"`;
  const timeoutError = (ms: number) => new SpindleError('node_timeout', `${subject} timed out after ${ms} ms`);
  if (entry.form === 'plain') {
    // Today's form has no policy; it still gets the hard cut when the run aborts.
    return (ctx) =>
      callWithPolicy({
        signal: ctx.signal,
        timeoutError,
        run: (signal) => entry.run({ ...ctx, signal }),
      }) as ReturnType<RegisteredFunction>;
  }
  const def = entry.definition as PluginFunctionDefinition;
  return async (ctx) => {
    const args = input.validate(ctx.args as Record<string, unknown>, subject);
    const { emit, reportUsage } = ctx;
    const result = await callWithPolicy({
      signal: ctx.signal,
      timeoutMs: def.timeoutMs,
      retry: def.retry,
      timeoutError,
      onRetry: (failure) => ctx.attemptFailed(failure),
      run: (signal, attempt) =>
        def.run(args, { state: ctx.state, nodeId: ctx.nodeId, runId: ctx.runId, signal, attempt, fetch, emit, reportUsage }),
    });
    return (output ? output.validate(result, subject) : result) as Record<string, unknown> | void;
  };
}
