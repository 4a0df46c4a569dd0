import { isRetryable, isSpindleError } from '@spindle/contracts';

/** Why a start failed for good, as a firing or a thread run records it. */
export interface StartFailure {
  code: string;
  message: string;
}

/**
 * What a failed start means for the schedule firing or thread run that asked for it: `undefined`
 * when trying again can help (an outage, the start rate: `isRetryable`), so it waits for the next
 * pass; otherwise its failure, recorded for good.
 */
export function failedForGood(e: unknown): StartFailure | undefined {
  if (isRetryable(e) || !isSpindleError(e)) return undefined;
  return { code: e.code, message: e.message };
}
