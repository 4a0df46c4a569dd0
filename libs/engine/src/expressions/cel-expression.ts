import { SpindleError } from '@spindle/contracts';
import { toCelContext } from './cel-context';
import { publicName } from './cel-environment';
import { compileCel, ExpressionRefusal } from './cel-program';
import {
  MAX_EXPRESSION_CALL_ARGUMENTS,
  MAX_EXPRESSION_DEPTH,
  MAX_EXPRESSION_LITERAL_ENTRIES,
  MAX_EXPRESSION_NODES,
} from './expression-limits';
import { ExpressionLimitError, metered } from './expression-meter';

/**
 * Conditions are CEL (Common Expression Language): side-effect free, non-Turing-complete and
 * evaluated by a parser/interpreter — never `eval` or `Function` — within the limits of
 * expression-limits.ts, so no expression holds the event loop for more than a few milliseconds.
 */

/** Why an expression is refused (text that reads after "expression "), or undefined when it is fine. */
export function checkExpression(expression: string): string | undefined {
  try {
    compileCel(expression);
    return undefined;
  } catch (e) {
    return refusal(e);
  }
}

export function evaluateCondition(expression: string, state: Readonly<Record<string, unknown>>): boolean {
  let value: unknown;
  try {
    const program = compileCel(expression);
    value = metered(() => program.evaluate(toCelContext(state, program.identifiers)));
  } catch (e) {
    throw new SpindleError('expression_error', `expression "${shorten(expression)}" ${refusal(e)}`);
  }
  if (typeof value !== 'boolean') {
    throw new SpindleError('expression_error', `expression "${shorten(expression)}" returned ${typeof value}, expected a boolean`);
  }
  return value;
}

/**
 * Any value an expression computes (a field, a list), as JSON again: CEL ints (BigInt) become
 * numbers and CEL maps plain objects. Refusals are `expression_error`, like conditions.
 */
export function evaluateValue(expression: string, state: Readonly<Record<string, unknown>>): unknown {
  try {
    const program = compileCel(expression);
    return fromCel(metered(() => program.evaluate(toCelContext(state, program.identifiers))));
  } catch (e) {
    throw new SpindleError('expression_error', `expression "${shorten(expression)}" ${refusal(e)}`);
  }
}

function fromCel(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(fromCel);
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, item] of entries) out[String(key)] = fromCel(item);
  return out;
}

/** cel-js names its structural limits by option; these are the engine's constants behind them. */
const LIMIT_NAMES: Record<string, string> = {
  maxAstNodes: `has more than ${MAX_EXPRESSION_NODES} nodes (MAX_EXPRESSION_NODES)`,
  maxDepth: `nests deeper than ${MAX_EXPRESSION_DEPTH} levels (MAX_EXPRESSION_DEPTH)`,
  maxListElements: `has a list literal over ${MAX_EXPRESSION_LITERAL_ENTRIES} elements (MAX_EXPRESSION_LITERAL_ENTRIES)`,
  maxMapEntries: `has a map literal over ${MAX_EXPRESSION_LITERAL_ENTRIES} entries (MAX_EXPRESSION_LITERAL_ENTRIES)`,
  maxCallArguments: `has a call with over ${MAX_EXPRESSION_CALL_ARGUMENTS} arguments (MAX_EXPRESSION_CALL_ARGUMENTS)`,
};

function refusal(e: unknown): string {
  if (e instanceof ExpressionRefusal) return e.message;
  if (e instanceof ExpressionLimitError) return `stopped: ${e.message}`;
  const { code, summary, message } = e as { code?: string; summary?: string; message?: string };
  const first = (summary ?? message ?? String(e)).split('\n')[0];
  if (code === 'limit_exceeded') return LIMIT_NAMES[/Exceeded (\w+)/.exec(first)?.[1] ?? ''] ?? first;
  const reason = first.replace(/__spindle_\w+/g, (name) => publicName[name] ?? name);
  return (e as Error).name === 'ParseError' ? `does not parse: ${reason}` : `failed: ${reason}`;
}

function shorten(expression: string): string {
  return expression.length > 200 ? `${expression.slice(0, 200)}…` : expression;
}
