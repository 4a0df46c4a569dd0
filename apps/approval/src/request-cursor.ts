import { SpindleError } from '@spindle/contracts';

/**
 * Where a page of `listRequests` ended: the last row's `(requested_at, request_id)`. The time is
 * the database's own text of it (microseconds kept), so paging never skips a request asked in
 * the same millisecond. Opaque to callers: base64url of a JSON pair.
 */
export interface RequestCursor {
  requestedAt: string;
  requestId: string;
}

export function encodeRequestCursor(cursor: RequestCursor): string {
  return Buffer.from(JSON.stringify([cursor.requestedAt, cursor.requestId])).toString('base64url');
}

export function decodeRequestCursor(text: string): RequestCursor {
  let pair: unknown;
  try {
    pair = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    pair = undefined;
  }
  if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string' || Number.isNaN(Date.parse(pair[0]))) {
    throw new SpindleError('validation_failed', 'cursor: not a cursor this service issued', { issues: [{ field: 'cursor', message: 'invalid cursor' }] });
  }
  return { requestedAt: pair[0], requestId: pair[1] };
}
