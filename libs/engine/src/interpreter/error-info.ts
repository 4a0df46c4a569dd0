import { isSpindleError, PublicError, type ErrorInfo } from '@spindle/contracts';

/**
 * Turns anything thrown into the log's error shape. Spindle errors and `PublicError` keep their
 * message; any other error (user code, a library) is redacted to its type and a correlation id,
 * and its full text goes to the runner's log under that id.
 */
export function toErrorInfo(
  error: unknown,
  fallbackCode: ErrorInfo['code'],
  correlationId: () => string,
  reportRedacted: (correlationId: string, error: unknown) => void,
): ErrorInfo {
  if (isSpindleError(error)) {
    return { code: error.code, message: error.message, ...(error.correlationId ? { correlationId: error.correlationId } : {}) };
  }
  if (error instanceof PublicError) return { code: fallbackCode, message: error.message };
  const id = correlationId();
  reportRedacted(id, error);
  const type = error instanceof Error ? error.name : typeof error;
  return { code: fallbackCode, message: `${type} (correlation id ${id})`, correlationId: id };
}
