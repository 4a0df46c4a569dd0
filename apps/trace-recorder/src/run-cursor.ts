import { decodeKeysetCursor, encodeKeysetCursor } from '@spindle/db';

/** Where a page of `listRuns` ended: the last row's `(queued_at, run_id)`. */
export interface RunCursor {
  queuedAt: string;
  runId: string;
}

export const encodeRunCursor = (cursor: RunCursor): string => encodeKeysetCursor({ at: cursor.queuedAt, id: cursor.runId });

export function decodeRunCursor(text: string): RunCursor {
  const { at, id } = decodeKeysetCursor(text);
  return { queuedAt: at, runId: id };
}
