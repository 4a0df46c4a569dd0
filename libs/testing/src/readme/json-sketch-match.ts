import { isDeepStrictEqual } from 'node:util';
import { VOLATILE_MEMBERS, type AnswerBindings } from './answer-bindings';
import type { JsonSketch } from './json-sketch';

/**
 * How `actual` differs from what the README shows (`sketch`), one line per difference, each naming
 * its JSON path; empty when it matches. Volatile members are matched by `bindings`.
 */
export function sketchMismatches(sketch: JsonSketch, actual: unknown, bindings: AnswerBindings, path = '$'): string[] {
  const out: string[] = [];
  match(sketch, actual, path, { bindings, out });
  return out;
}

interface MatchContext {
  bindings: AnswerBindings;
  out: string[];
}

function match(sketch: JsonSketch, actual: unknown, path: string, ctx: MatchContext): void {
  switch (sketch.kind) {
    case 'any':
      return;
    case 'value': {
      const shown = typeof sketch.value === 'string' ? ctx.bindings.substitute(sketch.value) : sketch.value;
      if (!isDeepStrictEqual(shown, actual)) ctx.out.push(`${path}: expected ${JSON.stringify(shown)}, got ${brief(actual)}`);
      return;
    }
    case 'array':
      return matchArray(sketch, actual, path, ctx);
    case 'object':
      return matchObject(sketch, actual, path, ctx);
  }
}

function matchArray(sketch: Extract<JsonSketch, { kind: 'array' }>, actual: unknown, path: string, ctx: MatchContext): void {
  if (!Array.isArray(actual)) return void ctx.out.push(`${path}: expected an array, got ${brief(actual)}`);
  const lengthFits = sketch.open ? actual.length >= sketch.items.length : actual.length === sketch.items.length;
  if (!lengthFits) {
    ctx.out.push(`${path}: expected ${sketch.open ? 'at least ' : ''}${sketch.items.length} items, got ${actual.length}`);
  }
  sketch.items.forEach((item, i) => {
    if (i < actual.length) match(item, actual[i], `${path}[${i}]`, ctx);
  });
}

function matchObject(sketch: Extract<JsonSketch, { kind: 'object' }>, actual: unknown, path: string, ctx: MatchContext): void {
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
    return void ctx.out.push(`${path}: expected an object, got ${brief(actual)}`);
  }
  const members = new Map(Object.entries(actual));
  // Volatile members first: what they bind may be shown again in the other members (a location holding a run id).
  const ordered = [...sketch.members].sort(([a], [b]) => Number(VOLATILE_MEMBERS.has(b)) - Number(VOLATILE_MEMBERS.has(a)));
  for (const [key, shown] of ordered) {
    const at = `${path}.${key}`;
    if (!members.has(key)) {
      ctx.out.push(`${at}: missing`);
      continue;
    }
    const value = members.get(key);
    if (VOLATILE_MEMBERS.has(key) && shown.kind === 'value') {
      const expected = ctx.bindings.bindVolatile(shown.value, value);
      if (expected !== undefined) ctx.out.push(`${at}: expected ${expected}, got ${brief(value)}`);
    } else {
      match(shown, value, at, ctx);
    }
  }
  if (!sketch.open) {
    const shownKeys = new Set(sketch.members.map(([key]) => key));
    const extra = [...members.keys()].filter((key) => !shownKeys.has(key));
    if (extra.length > 0) ctx.out.push(`${path}: has members the README does not show (add them, or …): ${extra.join(', ')}`);
  }
}

function brief(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
