import { isRetrievalResult, SpindleError } from '@spindle/contracts';

/**
 * Placeholders. Both patterns run in linear time on V8's backtracking engine: the identifier
 * classes exclude `.`, `{`, `}` and spaces, so each character has one way to match and a failed
 * attempt never re-reads more than its own placeholder (render-template.spec.ts: 100 KB hostile templates).
 */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}\}/g;
const WHOLE_PLACEHOLDER = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}\}$/;

/**
 * Most a template may render, in characters (values a lone placeholder keeps counted by their
 * JSON size): 8 MiB is twice the text of the largest model context (~1M tokens), and keeps a large
 * value referenced a thousand times from allocating gigabytes here or in the run log.
 */
export const MAX_RENDERED_SIZE = 8 * 1024 * 1024;
/** Deepest JSON a value template may nest (`renderValue` recurses through it). */
export const MAX_TEMPLATE_DEPTH = 64;

/**
 * `{{key}}` and `{{a.b}}` (and `{{items.0}}`) interpolate state; a missing key is an error, not "".
 * `overrides` replace the text of some placeholders (by path): how a prompt is rendered with the
 * fields its context budget cut (see context/assemble-prompt.ts).
 */
export function renderTemplate(
  template: string,
  state: Readonly<Record<string, unknown>>,
  overrides?: ReadonlyMap<string, string>,
): string {
  return render(template, state, new RenderBudget(), overrides);
}

/** The value a placeholder path reads (`template_error` when state has none). */
export function templateValue(state: Readonly<Record<string, unknown>>, path: string): unknown {
  return lookup(state, path);
}

/**
 * Renders a JSON value: strings are templates, except a string that is one placeholder alone,
 * which keeps the referenced value's type (so `"{{input.items}}"` stays an array).
 */
export function renderValue(value: unknown, state: Readonly<Record<string, unknown>>): unknown {
  return renderIn(value, state, new RenderBudget(), 0);
}

/** State keys a template reads, for validation and for the node's rendered input. */
export function templateKeys(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1]);
}

/** What one rendering may still produce; each distinct value is sized and serialized once. */
class RenderBudget {
  private left = MAX_RENDERED_SIZE;
  private readonly sizes = new Map<object, number>();
  private readonly texts = new Map<object, string>();

  spend(size: number): void {
    this.left -= size;
    if (this.left < 0)
      throw new SpindleError('template_error', `rendered text is over MAX_RENDERED_SIZE (${MAX_RENDERED_SIZE} characters)`);
  }

  /** Spends the JSON size of `value` (sized before serializing, so an oversized value never is). */
  spendValue(value: unknown): void {
    if (value === null || typeof value !== 'object') return this.spend(typeof value === 'string' ? value.length : 8);
    let size = this.sizes.get(value);
    if (size === undefined) this.sizes.set(value, (size = this.sizeOf(value)));
    this.spend(size);
  }

  text(value: unknown): string {
    if (value === null || typeof value !== 'object') return templateText(value);
    let text = this.texts.get(value);
    if (text === undefined) this.texts.set(value, (text = templateText(value)));
    return text;
  }

  /** Approximate JSON size of `value`, counted only up to what is left (so counting stays cheap). */
  private sizeOf(value: object): number {
    let size = 0;
    const pending: unknown[] = [value];
    while (pending.length > 0 && size <= this.left) {
      const v = pending.pop();
      if (typeof v === 'string') size += v.length + 2;
      else if (v === null || typeof v !== 'object')
        size += 8; // numbers, booleans, null: a rough width
      else {
        size += 2;
        for (const item of Array.isArray(v) ? v : Object.entries(v)) {
          if (typeof item === 'string') size += item.length + 3;
          else if (item === null || typeof item !== 'object') size += 8;
          else pending.push(item); // an [key, value] pair counts its key as a string
          if (size > this.left) break;
        }
      }
    }
    return size;
  }
}

function render(
  template: string,
  state: Readonly<Record<string, unknown>>,
  budget: RenderBudget,
  overrides?: ReadonlyMap<string, string>,
): string {
  budget.spend(template.length);
  return template.replace(PLACEHOLDER, (_, path: string) => {
    const override = overrides?.get(path);
    if (override !== undefined) return override;
    const value = lookup(state, path);
    budget.spendValue(value);
    return budget.text(value);
  });
}

function renderIn(value: unknown, state: Readonly<Record<string, unknown>>, budget: RenderBudget, depth: number): unknown {
  if (depth > MAX_TEMPLATE_DEPTH)
    throw new SpindleError('template_error', `template value nests deeper than ${MAX_TEMPLATE_DEPTH} levels (MAX_TEMPLATE_DEPTH)`);
  if (typeof value === 'string') {
    const whole = WHOLE_PLACEHOLDER.exec(value);
    if (!whole) return render(value, state, budget);
    const found = lookup(state, whole[1]);
    budget.spendValue(found);
    return found;
  }
  if (Array.isArray(value)) return value.map((v) => renderIn(v, state, budget, depth + 1));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderIn(v, state, budget, depth + 1)]));
  }
  return value;
}

function lookup(state: Readonly<Record<string, unknown>>, path: string): unknown {
  let current: unknown = state;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object' || !Object.prototype.hasOwnProperty.call(current, part)) {
      throw new SpindleError('template_error', `template reads "{{${path}}}" but state has no "${path}"`);
    }
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/**
 * A value as a template renders it: strings as they are, a retrieve node's result as its chunks
 * (numbered, each with its source: what a prompt wants of them), anything else as JSON.
 */
export function templateText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  if (isRetrievalResult(value)) return value.chunks.map((c, i) => `[${i + 1}] (${c.source}) ${c.text}`).join('\n\n');
  return JSON.stringify(value);
}
