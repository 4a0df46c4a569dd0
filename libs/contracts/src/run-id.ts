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

const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** When a ULID run id was made (its first 48 bits, milliseconds since the epoch); undefined for any other id. */
export function runIdTime(runId: string): number | undefined {
  if (!ULID_PATTERN.test(runId)) return undefined;
  let ms = 0;
  for (const c of runId.slice(0, 10)) ms = ms * 32 + CROCKFORD.indexOf(c);
  return ms;
}

/**
 * A run with no log lost it when its id was made before the run log's stream was (a JetStream
 * store lost and the stream made again): nothing made after the stream can be missing from it.
 * Any other id without a log never had one. Answers the same whoever asks, so it tells no one
 * whether an id was in use.
 */
export function predatesRunLog(runId: string, logCreatedMs: number): boolean {
  const made = runIdTime(runId);
  return made !== undefined && made < logCreatedMs;
}
