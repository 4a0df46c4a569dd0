import { describeIssues, zodFieldIssues } from './field-issues';
import { z } from 'zod';

/** A process's environment, handed in by the app at its edge (this module never reads it itself). */
export type Env = Record<string, string | undefined>;

const BOOLEANS: Readonly<Record<string, boolean>> = { true: true, '1': true, false: false, '0': false };

/**
 * A flag: `true`/`1` or `false`/`0` (any case); unset or empty is `fallback`. Anything else is
 * refused, so a mistyped `yes` stops the start instead of silently reading as false.
 */
export function envBoolean(fallback = false) {
  return z
    .string()
    .optional()
    .transform((text, ctx) => {
      const value = text?.trim().toLowerCase();
      if (value === undefined || value === '') return fallback;
      if (Object.hasOwn(BOOLEANS, value)) return BOOLEANS[value];
      ctx.addIssue({ code: 'custom', message: `must be true or false (1 or 0), got "${text}"` });
      return z.NEVER;
    });
}

/** A whole number from `min` to `max`; unset is `fallback`. */
export function envInteger(fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) {
  return z.coerce.number().int().min(min).max(max).default(fallback);
}

/** A number above zero (fractions allowed); unset is `fallback`. */
export function envPositive(fallback: number) {
  return z.coerce.number().positive().default(fallback);
}

/** An optional value: unset or empty is `undefined`, anything else must pass `schema`. */
export function envOptional<S extends z.ZodType>(schema: S) {
  return z.preprocess((text) => (text === '' ? undefined : text), schema.optional());
}

/** Text, trimmed: unset, empty or blank is `undefined`, so `FOO=` in a .env file sets nothing. */
export function envText() {
  return z.preprocess((v) => (typeof v === 'string' ? v.trim() || undefined : v), z.string().optional());
}

/** The one way a service reads its environment: a zod schema, and a refusal naming every bad variable. */
export function parseEnv<S extends z.ZodType>(schema: S, env: Env, service: string): z.output<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  throw new Error(`invalid environment for ${service}: ${describeIssues(zodFieldIssues(parsed.error.issues, { whole: '(environment)' }))}`);
}
