import { SpindleError, type ErrorInfo } from '@spindle/contracts';
import { ParticipantTimeout } from '../interpreter/participant-timeout';

/**
 * A nested graph's failure becomes its node's failure, keeping the code (and correlation id). A
 * participant's wait limit keeps naming the participant: its message already says which, and where.
 */
export function failureOf(error: ErrorInfo): SpindleError {
  if (error.code === 'participant_timeout' && error.nodeId) return new ParticipantTimeout(error.nodeId, error.message);
  return new SpindleError(error.code, error.nodeId ? `${error.nodeId}: ${error.message}` : error.message, {
    correlationId: error.correlationId,
  });
}
