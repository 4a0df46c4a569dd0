import type { FunctionContext, RegisteredFunction } from '@spindle/engine';

/**
 * What a plugin module exports. Plugins are plain CommonJS (or require()-able ESM) modules and
 * never import Spindle: these types document the shape, `parseDefinition` enforces it at load.
 */
export interface PluginModule {
  functions?: Record<string, PluginFunctionDefinition | RegisteredFunction>;
  tools?: Record<string, PluginToolDefinition>;
  /** Searches a `retrieve` node reaches by naming them as its `knowledgeBase` (see plugin-retrievers.ts). */
  retrievers?: Record<string, unknown>;
}

/** A zod schema (anything with `safeParse`) or a JSON Schema object whose root is `type: "object"`. */
export type InputSchema = { safeParse(value: unknown): unknown } | Record<string, unknown>;

export interface RetryPolicy {
  /** Total tries, the first included (1 = no retry). */
  attempts: number;
  /** Wait before the 2nd try; doubles for each further try. */
  backoffMs?: number;
  /** Whether this error is worth another try; every error but validation and aborts by default. */
  retryOn?: (error: unknown) => boolean;
}

export interface CallPolicy {
  /** Per try. The `signal` given to `run` aborts then, and the call fails even if `run` ignores it. */
  timeoutMs?: number;
  retry?: RetryPolicy;
}

export interface PluginFunctionContext {
  readonly state: Readonly<Record<string, unknown>>;
  readonly nodeId: string;
  readonly runId: string;
  readonly signal: AbortSignal;
  /** 1 for the first try. */
  readonly attempt: number;
  /**
   * `fetch` through the runner's egress guard: a target that is, or resolves to, an internal
   * address the operator did not allow (`SPINDLE_EGRESS_ALLOWED_HOSTS`) fails with a Spindle error
   * of code `egress_refused` before anything is sent, redirects included. Use it rather than the global one.
   */
  readonly fetch: typeof fetch;
}

export interface PluginToolContext {
  readonly runId: string;
  readonly nodeId: string;
  readonly callId: string;
  readonly signal: AbortSignal;
  readonly attempt: number;
  /**
   * `fetch` through the runner's egress guard: a target that is, or resolves to, an internal
   * address the operator did not allow (`SPINDLE_EGRESS_ALLOWED_HOSTS`) fails with a Spindle error
   * of code `egress_refused` before anything is sent, redirects included. Use it rather than the global one.
   */
  readonly fetch: typeof fetch;
}

export interface PluginFunctionDefinition extends CallPolicy {
  description?: string;
  /**
   * Declares that `run` computes only from its arguments and state — no I/O, no effect — so
   * the runner calls it without waiting for the run's log first. Declared wrongly, a crash may
   * leave an effect the log does not show.
   */
  pure?: boolean;
  input?: InputSchema;
  /** Returns the state delta (an object of keys) or nothing. */
  run(args: Record<string, unknown>, ctx: PluginFunctionContext): unknown;
}

export interface PluginToolDefinition extends CallPolicy {
  description?: string;
  input?: InputSchema;
  /** Returns any JSON-serialisable result; the model sees it as JSON text. */
  run(args: Record<string, unknown>, ctx: PluginToolContext): unknown;
}

/** One loaded entry: either today's plain `(ctx) => delta` or a full definition. */
export type ParsedEntry =
  | { form: 'plain'; run: (ctx: FunctionContext) => unknown }
  | { form: 'definition'; definition: PluginFunctionDefinition | PluginToolDefinition };

const knownKeys = new Set(['description', 'input', 'timeoutMs', 'retry', 'run', 'pure']);
const retryKeys = new Set(['attempts', 'backoffMs', 'retryOn']);
// setTimeout fires at once for larger delays, which would turn a long timeout into none.
const maxTimerMs = 2_147_483_647;

/**
 * Checks one export entry and says exactly what is wrong with it: plugin authors meet these
 * messages at startup, so they name the plugin, the kind and the entry.
 */
export function parseDefinition(kind: 'function' | 'tool', value: unknown, where: string): ParsedEntry {
  if (typeof value === 'function') {
    if (kind === 'tool')
      throw new Error(`${where} must be an object with a run(args, ctx) method (a bare function is accepted for functions only)`);
    return { form: 'plain', run: value as (ctx: FunctionContext) => unknown };
  }
  if (value === null || typeof value !== 'object' || typeof (value as { run?: unknown }).run !== 'function') {
    throw new Error(`${where} must be ${kind === 'function' ? 'a function or ' : ''}an object with a run(args, ctx) method`);
  }
  const def = value as PluginToolDefinition;
  const unknown = Object.keys(def).filter((k) => !knownKeys.has(k));
  if (unknown.length > 0)
    throw new Error(`${where} has unknown key(s) ${unknown.map((k) => `"${k}"`).join(', ')} (known: ${[...knownKeys].join(', ')})`);
  if (def.description !== undefined && typeof def.description !== 'string') throw new Error(`${where}: "description" must be a string`);
  if (def.input !== undefined && (def.input === null || typeof def.input !== 'object'))
    throw new Error(`${where}: "input" must be a zod schema or a JSON Schema object`);
  if (def.timeoutMs !== undefined && !isIntIn(def.timeoutMs, 1, maxTimerMs))
    throw new Error(`${where}: "timeoutMs" must be an integer from 1 to ${maxTimerMs}`);
  if (def.retry !== undefined) parseRetry(def.retry, where);
  const pure = (def as { pure?: unknown }).pure;
  // A tool is called by a model to act or to look something up: it is never run ahead of the log.
  if (pure !== undefined && kind === 'tool') throw new Error(`${where}: "pure" is for functions; a tool call always waits for the log`);
  if (pure !== undefined && typeof pure !== 'boolean') throw new Error(`${where}: "pure" must be true or false`);
  return { form: 'definition', definition: def };
}

function parseRetry(retry: unknown, where: string): void {
  if (retry === null || typeof retry !== 'object')
    throw new Error(`${where}: "retry" must be an object { attempts, backoffMs?, retryOn? }`);
  const r = retry as RetryPolicy;
  const unknown = Object.keys(r).filter((k) => !retryKeys.has(k));
  if (unknown.length > 0)
    throw new Error(
      `${where}: "retry" has unknown key(s) ${unknown.map((k) => `"${k}"`).join(', ')} (known: ${[...retryKeys].join(', ')})`,
    );
  if (!isIntIn(r.attempts, 1, 100)) throw new Error(`${where}: "retry.attempts" must be an integer from 1 to 100`);
  if (r.backoffMs !== undefined && !isIntIn(r.backoffMs, 0, maxTimerMs))
    throw new Error(`${where}: "retry.backoffMs" must be an integer ≥ 0`);
  if (r.retryOn !== undefined && typeof r.retryOn !== 'function')
    throw new Error(`${where}: "retry.retryOn" must be a function (error) => boolean`);
}

function isIntIn(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}
