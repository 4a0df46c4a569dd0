import { SpindleError, type ErrorInfo } from '@spindle/contracts';

/** A nested graph's failure becomes its node's failure, keeping the code (and correlation id). */
export function failureOf(error: ErrorInfo): SpindleError {
  return new SpindleError(error.code, error.nodeId ? `${error.nodeId}: ${error.message}` : error.message, {
    correlationId: error.correlationId,
  });
}
