import { z } from 'zod';
import { SpindleError } from './errors';

/**
 * What a run id may be: ULIDs in practice, and always one safe NATS subject token (no `.`,
 * `*`, `>` or whitespace), so an id can never widen a subject into a wildcard.
 */
export const RUN_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const runIdSchema = z.string().regex(RUN_ID_PATTERN, 'not a run id (1–64 letters, digits, _ or -)');

export function isRunId(value: unknown): value is string {
  return typeof value === 'string' && RUN_ID_PATTERN.test(value);
}

/** Guards subject construction: a caller that forgot to check an id gets a 4xx, never a wildcard. */
export function assertRunId(value: string): string {
  if (!RUN_ID_PATTERN.test(value))
    throw new SpindleError('validation_failed', `"${value.slice(0, 80)}" is not a run id`, {
      issues: [{ field: 'runId', message: 'not a run id' }],
    });
  return value;
}
