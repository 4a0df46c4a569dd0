import { decodeKeysetCursor } from '@spindle/db';
import { z } from 'zod';
import { queryInteger } from './decimal-integer';
import { RUN_ID, WORKFLOW_NAME } from './path-params';

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

export const listCursor = z.string().min(1).max(500).refine(isListCursor, 'not a cursor this service issued');
export const listLimit = queryInteger({ min: 1, max: 200 }).default(50);
export const workflowNameFilter = z.string().regex(WORKFLOW_NAME, 'not a workflow name');
