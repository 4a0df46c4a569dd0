import type { FunctionContext, ToolContext } from './plugin-context';
import type { StandardSchemaV1 } from './standard-schema';

/** A JSON Schema object (for `input`: `type: "object"` at its root). Its arguments are then untyped. */
export interface JsonSchema {
  readonly [keyword: string]: unknown;
}

/** A zod 4 schema (or any Standard Schema) or a JSON Schema object. */
export type Schema = StandardSchemaV1 | JsonSchema;

type MaybePromise<T> = T | Promise<T>;

/** What `run` receives: the schema's parsed output (defaults applied), or any object without a typed schema. */
export type ArgsOf<S> = S extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<S> : Record<string, unknown>;

/**
 * What `run` must return when `output` is a typed schema: what the schema accepts (arrays may be
 * readonly: the result is read, never changed, and `as const` values fit).
 */
export type ResultOf<S, Untyped> = Relaxed<S extends StandardSchemaV1 ? StandardSchemaV1.InferInput<S> : Untyped>;

type Relaxed<T> = T extends readonly (infer U)[]
  ? readonly Relaxed<U>[]
  : T extends (...args: never[]) => unknown
    ? T
    : T extends object
      ? { readonly [K in keyof T]: Relaxed<T[K]> }
      : T;

type FunctionResult<O> = ResultOf<O, Record<string, unknown> | void>;
type ToolResult<O> = ResultOf<O, unknown>;

export interface RetryPolicy {
  /** Total tries, the first included (1 = no retry); at most 100. */
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

/** What a function and a tool have alike: a description, schemas for what goes in and out, and `run`. */
interface CodeDefinition<I extends Schema | undefined, O extends Schema | undefined, Ctx, R> extends CallPolicy {
  /** For a tool, what the model reads to decide when to call it. */
  description?: string;
  /**
   * Checks the arguments before `run` (a failure is `validation_failed`, naming the field). A
   * tool's is what the model must send: a zod 4 schema is turned into the JSON Schema it sees.
   */
  input?: I;
  /** Checks what `run` returns (a failure is `function_failed` or `tool_failed`, naming the field). */
  output?: O;
  /** A function returns the state delta (an object of keys) or nothing; a tool any JSON-serialisable result. */
  run(args: ArgsOf<NoInfer<I>>, ctx: Ctx): MaybePromise<R>;
}

export interface FunctionDefinition<
  I extends Schema | undefined = Schema | undefined,
  O extends Schema | undefined = Schema | undefined,
  R extends FunctionResult<O> = FunctionResult<O>,
> extends CodeDefinition<I, O, FunctionContext, R> {
  /**
   * Declares that `run` computes only from its arguments and state — no I/O, no effect — so
   * the runner calls it without waiting for the run's log first. Declared wrongly, a crash may
   * leave an effect the log does not show.
   */
  pure?: boolean;
}

export type ToolDefinition<
  I extends Schema | undefined = Schema | undefined,
  O extends Schema | undefined = Schema | undefined,
  R extends ToolResult<O> = ToolResult<O>,
> = CodeDefinition<I, O, ToolContext, R>;

export interface RetrievalRequest {
  query: string;
  topK: number;
  minScore?: number;
  filter?: Record<string, string | number | boolean>;
}

export interface RetrieverContext {
  readonly signal: AbortSignal;
  readonly attempt: number;
  /** `fetch` through the runner's egress guard. */
  readonly fetch: typeof fetch;
}

/** A search a `retrieve` node names as its `knowledgeBase`. */
export interface RetrieverDefinition extends CallPolicy {
  description?: string;
  /** Chunks `{ id, text, score, source?, tokens?, metadata? }`; the runner sorts, applies `minScore` and cuts to `topK`. */
  retrieve(request: RetrievalRequest, ctx: RetrieverContext): MaybePromise<unknown[]>;
}

/** A plain function (the oldest form): it receives the whole context, the node's `args` among it. */
export type PlainFunction = (
  ctx: FunctionContext & { readonly args: Readonly<Record<string, unknown>> },
) => MaybePromise<Record<string, unknown> | void>;

/** What a plugin module exports, as the runner loads it. */
export interface PluginModule {
  /** The plugin's name and version, as the runner announces them. */
  name?: string;
  version?: string;
  functions?: Record<string, FunctionDefinition | PlainFunction>;
  tools?: Record<string, ToolDefinition>;
  retrievers?: Record<string, RetrieverDefinition>;
}

/**
 * A function node's code, typed: `args` from `input`, the result checked against `output`. `R`
 * is inferred from `run` (as `const`, so a literal such as `'shipped'` meets an enum).
 */
export function defineFunction<
  I extends Schema | undefined = undefined,
  O extends Schema | undefined = undefined,
  const R extends FunctionResult<O> = FunctionResult<O>,
>(definition: FunctionDefinition<I, O, R>): FunctionDefinition<I, O, R> {
  return definition;
}

/** A tool's code, typed: `args` from `input`, the result checked against `output`. */
export function defineTool<
  I extends Schema | undefined = undefined,
  O extends Schema | undefined = undefined,
  const R extends ToolResult<O> = ToolResult<O>,
>(definition: ToolDefinition<I, O, R>): ToolDefinition<I, O, R> {
  return definition;
}

/** A retriever's code, for symmetry with the other two. */
export function defineRetriever(definition: RetrieverDefinition): RetrieverDefinition {
  return definition;
}

/**
 * The module a runner loads (`module.exports = definePlugin({...})`): its functions, tools and
 * retrievers, with the name and version it announces them under.
 */
export function definePlugin<const P extends PluginModule & { name: string; version: string }>(plugin: P): P {
  if (typeof plugin.name !== 'string' || plugin.name.length === 0) throw new TypeError('definePlugin: "name" must be a non-empty string');
  if (typeof plugin.version !== 'string' || plugin.version.length === 0)
    throw new TypeError('definePlugin: "version" must be a non-empty string');
  return plugin;
}
