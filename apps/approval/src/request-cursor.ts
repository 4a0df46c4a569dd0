import { decodeKeysetCursor, encodeKeysetCursor } from '@spindle/db';

/** Where a page of `listRequests` ended: the last row's `(requested_at, request_id)`. */
export interface RequestCursor {
  requestedAt: string;
  requestId: string;
}

export const encodeRequestCursor = (cursor: RequestCursor): string => encodeKeysetCursor({ at: cursor.requestedAt, id: cursor.requestId });

export function decodeRequestCursor(text: string): RequestCursor {
  const { at, id } = decodeKeysetCursor(text);
  return { requestedAt: at, requestId: id };
}
