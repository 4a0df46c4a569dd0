import type * as Cel from '@marcbachmann/cel-js' with { 'resolution-mode': 'import' };
import { SpindleError } from '@spindle/contracts';

// cel-js ships only as ESM; Node >= 20.19 loads it with require(), which TypeScript's CommonJS
// output cannot express as an import yet.
const { evaluate, parse } = require('@marcbachmann/cel-js') as typeof Cel;

/**
 * Conditions are CEL (Common Expression Language): side-effect free, non-Turing-complete and
 * evaluated by a parser/interpreter — never `eval` or `Function`.
 */
export function checkExpression(expression: string): string | undefined {
  try {
    parse(expression);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message.split('\n')[0] : String(e);
  }
}

export function evaluateCondition(expression: string, state: Readonly<Record<string, unknown>>): boolean {
  let value: unknown;
  try {
    value = evaluate(expression, toCelContext(state));
  } catch (e) {
    const reason = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw new SpindleError('expression_error', `expression "${expression}" failed: ${reason}`);
  }
  if (typeof value !== 'boolean') {
    throw new SpindleError('expression_error', `expression "${expression}" returned ${typeof value}, expected a boolean`);
  }
  return value;
}

/** CEL distinguishes int from double; JSON numbers that are whole become BigInt ints for CEL. */
function toCelContext(value: unknown): Record<string, unknown> {
  return convert(value) as Record<string, unknown>;
}

function convert(value: unknown): unknown {
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (Array.isArray(value)) return value.map(convert);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convert(v)]));
  }
  return value;
}
