import { sql, type RawBuilder } from 'kysely';
import { SpindleError } from '@spindle/contracts';

/**
 * Where a page ended in a list ordered by `(timestamp, id)`: the last row's pair. `at` is the
 * database's own text of the timestamp (microseconds kept), so paging never skips a row written
 * within the same millisecond. Opaque to callers: base64url of a JSON pair.
 */
export interface KeysetCursor {
  at: string;
  id: string;
}

export function encodeKeysetCursor(cursor: KeysetCursor): string {
  return Buffer.from(JSON.stringify([cursor.at, cursor.id])).toString('base64url');
}

/** The cursor, or `validation_failed` on `cursor` for text this service did not issue. */
export function decodeKeysetCursor(text: string): KeysetCursor {
  let pair: unknown;
  try {
    pair = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    pair = undefined;
  }
  if (
    !Array.isArray(pair) ||
    pair.length !== 2 ||
    typeof pair[0] !== 'string' ||
    typeof pair[1] !== 'string' ||
    Number.isNaN(Date.parse(pair[0]))
  ) {
    throw new SpindleError('validation_failed', 'cursor: not a cursor this service issued', {
      issues: [{ field: 'cursor', message: 'invalid cursor' }],
    });
  }
  return { at: pair[0], id: pair[1] };
}

/**
 * The rows that come after the cursor in a list ordered by `created_at desc, id desc`: a row
 * comparison, so one index range serves it.
 */
export function olderThanCursor(cursor: KeysetCursor): RawBuilder<boolean> {
  return sql<boolean>`(created_at, id) < (${new Date(cursor.at)}, ${cursor.id})`;
}
