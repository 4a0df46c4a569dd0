import { z } from 'zod';

/** Versions are Postgres `integer` columns. */
export const MAX_VERSION = 2 ** 31 - 1;
/** Seqs are counted in JavaScript numbers; past this they stop being exact. */
export const MAX_SEQ = Number.MAX_SAFE_INTEGER;

/**
 * Plain decimal digits, no sign, no leading zero, at most 16 of them. What `Number()` would also
 * take (`0x10`, `1e3`, ` 7`, `1.0`, `+1`) is refused, so a seq, limit or version means one thing
 * whether it comes in a query string or a header.
 */
const DECIMAL_INTEGER = /^(0|[1-9][0-9]{0,15})$/;

export interface IntegerRange {
  min: number;
  max: number;
}

/** The integer `text` spells, or `undefined` when it is not a plain decimal integer within `range`. */
export function parseDecimalInteger(text: string, range: IntegerRange): number | undefined {
  if (!DECIMAL_INTEGER.test(text)) return undefined;
  const value = Number(text);
  return value >= range.min && value <= range.max ? value : undefined;
}

/** A query-string integer as a zod schema, refused (`validation_failed` naming it) like `parseDecimalInteger`. */
export function queryInteger(range: IntegerRange) {
  const digits = z.string().regex(DECIMAL_INTEGER, 'must be a decimal integer (digits only)');
  QUERY_INTEGER_RANGES.set(digits, range);
  return digits.transform(Number).pipe(z.number().min(range.min).max(range.max));
}

/** The digits schemas `queryInteger` made, with their ranges: the OpenAPI document says `integer` for them. */
const QUERY_INTEGER_RANGES = new WeakMap<z.ZodType, IntegerRange>();

/** The range of a `queryInteger`'s digits, so its JSON Schema can be `{ type: integer, minimum, maximum }` (a client sends a number). */
export function queryIntegerRange(schema: z.ZodType): IntegerRange | undefined {
  return QUERY_INTEGER_RANGES.get(schema);
}
