import { SpindleError, type RunSort, type SortOrder } from '@spindle/contracts';
import { decodeKeysetCursor, decodeRunListCursor } from '@spindle/db';
import { RUN_ID } from './path-params';

/** Printable ASCII: a cursor's timestamp is the database's own text of one. */
const TIMESTAMP_TEXT = /^[\x20-\x7e]{1,64}$/;

/**
 * Whether `text` is shaped like a cursor a list answered with: base64url of `[timestamp, id]`
 * where the id is a run or request id. The services that issued it decode it again; checking it
 * here keeps a forged one (a NUL in the id, say) from ever reaching their database.
 */
function isListCursor(text: string): boolean {
  try {
    const { at, id } = decodeKeysetCursor(text);
    return TIMESTAMP_TEXT.test(at) && RUN_ID.test(id);
  } catch {
    return false;
  }
}

/** A list query (already valid against its schema) whose `cursor`, if any, is one this service issued. */
export function requireIssuedCursor<Q extends { cursor?: string }>(query: Q): Q {
  if (query.cursor === undefined || isListCursor(query.cursor)) return query;
  const message = 'not a cursor this service issued';
  throw new SpindleError('validation_failed', `invalid request: query.cursor: ${message}`, {
    issues: [{ field: 'query.cursor', message }],
  });
}

/**
 * A runs list query whose `cursor`, if any, is one the runs list issued for the same sort and
 * order: a forged one (a NUL in its id, a value that is no number) never reaches the database.
 */
export function requireIssuedRunCursor<Q extends { cursor?: string; sort: RunSort; order: SortOrder }>(query: Q): Q {
  if (query.cursor !== undefined) decodeRunListCursor(query.cursor, query);
  return query;
}
