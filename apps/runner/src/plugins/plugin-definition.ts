import type { FunctionContext } from '@spindle/engine';
import type {
  CallPolicy,
  FunctionDefinition,
  FunctionContext as PluginFunctionContext,
  RetryPolicy,
  Schema,
  ToolDefinition,
  ToolContext as PluginToolContext,
} from '@spindle/plugin';

/**
 * The plugin contract is declared once, in `@spindle/plugin` (what plugin authors import); the
 * runner names it here. Plugins need not import it: `parseDefinition` checks the shape at load.
 */
export type { CallPolicy, PluginFunctionContext, PluginToolContext, RetryPolicy };
export type PluginFunctionDefinition = FunctionDefinition;
export type PluginToolDefinition = ToolDefinition;
/** A zod schema (or another Standard Schema) or a JSON Schema object. */
export type InputSchema = Schema;

/** One loaded entry: either today's plain `(ctx) => delta` or a full definition. */
export type ParsedEntry =
  | { form: 'plain'; run: (ctx: FunctionContext) => unknown }
  | { form: 'definition'; definition: PluginFunctionDefinition | PluginToolDefinition };

const knownKeys = new Set(['description', 'input', 'output', 'timeoutMs', 'retry', 'run', 'pure']);
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
  if (def.output !== undefined && (def.output === null || typeof def.output !== 'object'))
    throw new Error(`${where}: "output" must be a zod schema or a JSON Schema object`);
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
