import { MAX_EXPRESSION_STEPS } from './expression-limits';

/*
 * Counts the steps of the evaluation running now. Evaluation is synchronous, so one module-level
 * meter is enough; `metered` installs a fresh budget and restores the previous one after.
 * A step is about 100 ns of the slowest operation measured on its kind of value: a comprehension
 * is charged its length × the nodes of its body (one step a node, 40–100 ns measured), and the
 * values operators and functions read are charged by the weights below.
 */
/** A list element read by an operator or function (`in`, `+`, `==`, `join` measured 4–77 ns). */
export const STEPS_PER_ELEMENT = 1;
/** A map entry: cel-js searches and compares plain-object maps entry by entry (140–660 ns). */
export const STEPS_PER_ENTRY = 8;
/** String characters per step: `size()` counts code points at ~5 ns; most string functions run under 1 ns. */
const CHARACTERS_PER_STEP = 16;
/** Regex instructions × characters per step: up to ~18 ns each when a pattern defeats the DFA cache. */
export const REGEX_WORK_PER_STEP = 4;

/** An evaluation went over a limit; never absorbed by `||`, `&&` or `exists`, unlike other errors. */
export class ExpressionLimitError extends Error {}

let remaining = Number.POSITIVE_INFINITY;
let exceeded: ExpressionLimitError | undefined;

/**
 * Runs `evaluate` with a budget of `MAX_EXPRESSION_STEPS`. CEL's `||`, `&&` and quantifiers swallow
 * an error when the other side decides the result, so a limit is also remembered and thrown after.
 */
export function metered<T>(evaluate: () => T): T {
  const outer = { remaining, exceeded };
  remaining = MAX_EXPRESSION_STEPS;
  exceeded = undefined;
  try {
    const result = evaluate();
    if (exceeded) throw exceeded;
    return result;
  } catch (e) {
    throw exceeded ?? e;
  } finally {
    remaining = outer.remaining;
    exceeded = outer.exceeded;
  }
}

/** Takes `steps` from the budget; throws (and remembers) once it is spent. */
export function chargeSteps(steps: number, doing: () => string): void {
  remaining -= steps;
  if (remaining < 0) refuse(`evaluation cost is over MAX_EXPRESSION_STEPS (${MAX_EXPRESSION_STEPS} steps) ${doing()}`);
}

/** Fails the evaluation on a limit other than the step budget, just as sticky. */
export function refuse(message: string): never {
  remaining = -1;
  exceeded ??= new ExpressionLimitError(message);
  throw exceeded;
}

/** Steps to read `value` whole (as `==`, `in`, `+`, `join` may), counted through nested values. */
export function readSteps(value: unknown): number {
  if (typeof value === 'string') return value.length / CHARACTERS_PER_STEP;
  if (value === null || typeof value !== 'object') return 0;
  let steps = 0;
  const pending: unknown[] = [value];
  // Counting stops once over the budget: the count itself must not be the long operation.
  while (pending.length > 0 && steps <= remaining) {
    const v = pending.pop();
    if (typeof v === 'string') steps += v.length / CHARACTERS_PER_STEP;
    else if (v instanceof Uint8Array) steps += v.length / CHARACTERS_PER_STEP;
    else if (Array.isArray(v)) {
      steps += v.length * STEPS_PER_ELEMENT;
      if (steps <= remaining)
        for (const item of v) if (typeof item === 'string' || (item !== null && typeof item === 'object')) pending.push(item);
    } else if (v instanceof Map) {
      steps += v.size * STEPS_PER_ENTRY;
      if (steps <= remaining) for (const item of v.values()) pending.push(item);
    } else if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      for (const key in v) {
        steps += STEPS_PER_ENTRY + key.length / CHARACTERS_PER_STEP;
        if (steps > remaining) break;
        pending.push((v as Record<string, unknown>)[key]);
      }
    }
  }
  return steps;
}

/** Steps to read the text of a string or bytes only (`size()` of a list or map is constant time). */
export function textSteps(value: unknown): number {
  return typeof value === 'string' || value instanceof Uint8Array ? value.length / CHARACTERS_PER_STEP : 0;
}

/** How many times a comprehension's body runs over `value` (a list's elements, a map's keys). */
export function iterations(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  if (value instanceof Map) return value.size;
  if (value !== null && typeof value === 'object') return Object.keys(value).length;
  return 0;
}
