import { SpindleError } from '@spindle/contracts';

/**
 * Where a page of `listRuns` ended: the last row's `(queued_at, run_id)`. `queuedAt` is the
 * database's own text of the timestamp (microseconds kept), so paging never skips a run that
 * was queued within the same millisecond. Opaque to callers: base64url of a JSON pair.
 */
export interface RunCursor {
  queuedAt: string;
  runId: string;
}

export function encodeRunCursor(cursor: RunCursor): string {
  return Buffer.from(JSON.stringify([cursor.queuedAt, cursor.runId])).toString('base64url');
}

export function decodeRunCursor(text: string): RunCursor {
  let pair: unknown;
  try {
    pair = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    pair = undefined;
  }
  if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string' || Number.isNaN(Date.parse(pair[0]))) {
    throw new SpindleError('validation_failed', 'cursor: not a cursor this service issued', { issues: [{ field: 'cursor', message: 'invalid cursor' }] });
  }
  return { queuedAt: pair[0], runId: pair[1] };
}
