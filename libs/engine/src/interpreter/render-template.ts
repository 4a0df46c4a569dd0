import { SpindleError } from '@spindle/contracts';

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}\}/g;
const WHOLE_PLACEHOLDER = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}\}$/;

/** `{{key}}` and `{{a.b}}` (and `{{items.0}}`) interpolate state; a missing key is an error, not "". */
export function renderTemplate(template: string, state: Readonly<Record<string, unknown>>): string {
  return template.replace(PLACEHOLDER, (_, path: string) => stringify(lookup(state, path)));
}

/**
 * Renders a JSON value: strings are templates, except a string that is one placeholder alone,
 * which keeps the referenced value's type (so `"{{input.items}}"` stays an array).
 */
export function renderValue(value: unknown, state: Readonly<Record<string, unknown>>): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_PLACEHOLDER.exec(value);
    return whole ? lookup(state, whole[1]) : renderTemplate(value, state);
  }
  if (Array.isArray(value)) return value.map((v) => renderValue(v, state));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderValue(v, state)]));
  }
  return value;
}

/** State keys a template reads, for validation and for the node's rendered input. */
export function templateKeys(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1]);
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

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value);
}
