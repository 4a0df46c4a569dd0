import { SpindleError, type ErrorInfo } from '@spindle/contracts';
import type { RunState } from '../interpreter/state';

/** What a nested graph changed: the top-level keys whose values differ from where it started. */
export function changedKeys(before: RunState, after: RunState): Record<string, unknown> {
  return Object.fromEntries(Object.entries(after).filter(([key, value]) => before[key] !== value));
}

/** A nested graph's failure becomes its node's failure, keeping the code (and correlation id). */
export function failureOf(error: ErrorInfo): SpindleError {
  return new SpindleError(error.code, error.nodeId ? `${error.nodeId}: ${error.message}` : error.message, { correlationId: error.correlationId });
}
