import { RUN_ID_PATTERN, SpindleError, RUN_SORT_KEYS, type RunSort, type SortOrder } from '@spindle/contracts';

/**
 * Where a page of the runs list ended: the sort it was asked with and the last row's
 * `(sort value, run id)`. The value is text: the database's own text of `queued_at` (its
 * microseconds kept) or a number's shortest round-trip text, so the next page starts exactly
 * after that row. Opaque to callers: base64url of a JSON array.
 */
export interface RunListCursor {
  sort: RunSort;
  order: SortOrder;
  value: string;
  runId: string;
}

const NUMBER_TEXT = /^-?[0-9]{1,20}(\.[0-9]{1,20})?(e[+-]?[0-9]{1,3})?$/;
/** Printable ASCII: a timestamp's text is short and plain. */
const TIMESTAMP_TEXT = /^[\x20-\x7e]{1,64}$/;

export function encodeRunListCursor(cursor: RunListCursor): string {
  return Buffer.from(JSON.stringify(['runs', cursor.sort, cursor.order, cursor.value, cursor.runId])).toString('base64url');
}

/**
 * The cursor, or `validation_failed` on `cursor` for text this service did not issue or issued
 * for another sort: a page of one order cannot continue another.
 */
export function decodeRunListCursor(text: string, expected: { sort: RunSort; order: SortOrder }): RunListCursor {
  const cursor = parse(text);
  if (!cursor) return refuse('not a cursor this service issued');
  if (cursor.sort !== expected.sort || cursor.order !== expected.order)
    return refuse(`this cursor continues a list sorted by ${cursor.sort} ${cursor.order}: ask with that sort and order`);
  return cursor;
}

function parse(text: string): RunListCursor | undefined {
  let items: unknown;
  try {
    items = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(items) || items.length !== 5 || items[0] !== 'runs') return undefined;
  const [, sort, order, value, runId] = items as unknown[];
  if (!RUN_SORT_KEYS.includes(sort as RunSort) || (order !== 'asc' && order !== 'desc')) return undefined;
  if (typeof value !== 'string' || typeof runId !== 'string' || !RUN_ID_PATTERN.test(runId)) return undefined;
  const valueFits = sort === 'started' ? TIMESTAMP_TEXT.test(value) && !Number.isNaN(Date.parse(value)) : NUMBER_TEXT.test(value);
  return valueFits ? { sort: sort as RunSort, order, value, runId } : undefined;
}

function refuse(message: string): never {
  throw new SpindleError('validation_failed', `invalid request: query.cursor: ${message}`, {
    issues: [{ field: 'query.cursor', message }],
  });
}
