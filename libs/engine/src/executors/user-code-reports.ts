import { canonicalJson, customEventNameSchema, MAX_CUSTOM_EVENT_BYTES, SpindleError, type Usage } from '@spindle/contracts';
import type { UsageReport } from '@spindle/plugin';

// One declaration of what a report is: the plugin authors' package.
export type { UsageReport };

/** A report as the log records it. `units` has no prototype: a key named `__proto__` is only a key. */
export interface CheckedUsageReport {
  usage: Usage;
  units?: Record<string, number>;
  label?: string;
}

const MAX_UNITS = 32;
const MAX_UNIT_NAME = 64;
const MAX_UNIT_VALUE = 1e15;
const MAX_LABEL = 200;
const MAX_TOKENS = Number.MAX_SAFE_INTEGER;
const MAX_COST_USD = 1e9;
const MAX_JSON_DEPTH = 64;
const utf8 = new TextEncoder();

/** Checks `ctx.emit(name, data)`: a valid name and JSON data of at most `MAX_CUSTOM_EVENT_BYTES`. */
export function checkCustomEvent(name: unknown, data: unknown): { name: string; data: unknown } {
  const parsed = customEventNameSchema.safeParse(name);
  if (!parsed.success)
    throw new SpindleError(
      'validation_failed',
      `emit: the event name ${JSON.stringify(name) ?? String(name)} ${parsed.error.issues[0].message}`,
    );
  const where = nonJsonAt(data, 'data', 0);
  if (where) throw new SpindleError('validation_failed', `emit "${parsed.data}": ${where} is not JSON`);
  const bytes = utf8.encode(canonicalJson(data ?? null)).length;
  if (bytes > MAX_CUSTOM_EVENT_BYTES)
    throw new SpindleError(
      'payload_too_large',
      `emit "${parsed.data}": data takes ${bytes} bytes as JSON, more than the ${MAX_CUSTOM_EVENT_BYTES} a custom event may hold`,
    );
  return { name: parsed.data, data: data ?? null };
}

/** Checks `ctx.reportUsage(report)`: finite, non-negative amounts, at most 32 named units, a short label. */
export function checkUsageReport(report: unknown): CheckedUsageReport {
  if (report === null || typeof report !== 'object' || Array.isArray(report))
    throw invalidReport('the report must be an object { costUsd?, inputTokens?, outputTokens?, units?, label? }');
  const r = report as UsageReport & Record<string, unknown>;
  const unknownKeys = Object.keys(r).filter((k) => !['costUsd', 'inputTokens', 'outputTokens', 'units', 'label'].includes(k));
  if (unknownKeys.length > 0) throw invalidReport(`unknown key(s) ${unknownKeys.map((k) => `"${k}"`).join(', ')}`);
  const costUsd = amount(r.costUsd, 'costUsd', MAX_COST_USD, false);
  const inputTokens = amount(r.inputTokens, 'inputTokens', MAX_TOKENS, true) ?? 0;
  const outputTokens = amount(r.outputTokens, 'outputTokens', MAX_TOKENS, true) ?? 0;
  const units = r.units === undefined ? undefined : checkUnits(r.units);
  if (r.label !== undefined && (typeof r.label !== 'string' || r.label.length > MAX_LABEL))
    throw invalidReport(`"label" must be a string of at most ${MAX_LABEL} characters`);
  if (costUsd === undefined && inputTokens === 0 && outputTokens === 0 && units === undefined)
    throw invalidReport('it reports nothing: give costUsd, inputTokens, outputTokens or units');
  const usage: Usage = {
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    // A report is not a model call: without a cost it is not an unpriced call either.
    ...(costUsd !== undefined ? { costUsd } : { unpricedCalls: 0 }),
  };
  return { usage, ...(units ? { units } : {}), ...(r.label !== undefined ? { label: r.label } : {}) };
}

function checkUnits(units: unknown): Record<string, number> {
  const entries: Array<[unknown, unknown]> =
    units instanceof Map
      ? [...units.entries()]
      : units !== null && typeof units === 'object' && !Array.isArray(units)
        ? Object.entries(units)
        : (() => {
            throw invalidReport('"units" must be an object or a Map of name → count');
          })();
  if (entries.length > MAX_UNITS) throw invalidReport(`"units" may name at most ${MAX_UNITS} counts, got ${entries.length}`);
  const checked: Record<string, number> = Object.create(null) as Record<string, number>;
  for (const [name, value] of entries) {
    if (typeof name !== 'string' || name.length === 0 || name.length > MAX_UNIT_NAME)
      throw invalidReport(`a unit's name must be a string of 1 to ${MAX_UNIT_NAME} characters`);
    checked[name] = amount(value, `units.${name}`, MAX_UNIT_VALUE, false) as number;
  }
  return checked;
}

function amount(value: unknown, field: string, max: number, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > max || (integer && !Number.isInteger(value)))
    throw invalidReport(`"${field}" must be a${integer ? ' whole' : ''} number from 0 to ${max}, got ${String(value)}`);
  return value;
}

function invalidReport(reason: string): SpindleError {
  return new SpindleError('validation_failed', `reportUsage: ${reason}`);
}

/** Where `value` stops being JSON (a function, a class instance, NaN, a cycle deeper than the bound), or undefined. */
function nonJsonAt(value: unknown, path: string, depth: number): string | undefined {
  if (value === null || value === undefined || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path;
  if (typeof value !== 'object') return path;
  if (depth >= MAX_JSON_DEPTH) return `${path} (nested more than ${MAX_JSON_DEPTH} deep)`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = nonJsonAt(value[i], `${path}[${i}]`, depth + 1);
      if (at) return at;
    }
    return undefined;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return path;
  for (const [key, item] of Object.entries(value)) {
    const at = nonJsonAt(item, `${path}.${key}`, depth + 1);
    if (at) return at;
  }
  return undefined;
}
