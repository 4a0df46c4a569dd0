import { SpindleError } from '@spindle/contracts';

/** The error a replay stops with at a call its recording does not have (never retried: the same call diverges again). */
export function replayDiverged(message: string): SpindleError {
  return new SpindleError('replay_diverged', message);
}
