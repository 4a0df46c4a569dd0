import { backoffDelay, isRetryable, PublicError, sleep } from '@spindle/contracts';
import type { CallPolicy } from './plugin-definition';

export interface PolicyCall<T> extends CallPolicy {
  /** The run's signal: once it aborts there is no further try and no waiting for user code. */
  signal: AbortSignal;
  /** The error a try fails with when `timeoutMs` passes (its code differs for functions and tools). */
  timeoutError(ms: number): Error;
  run(signal: AbortSignal, attempt: number): Promise<T> | T;
  /**
   * Told of each failed try that another follows (the error as the engine will see it), before the
   * wait: the runner records it as `attempt.failed`. Not called for the last try, whose error is thrown.
   */
  onRetry?(failure: { attempt: number; error: unknown; retryInMs: number }): Promise<void> | void;
}

const defaultBackoffMs = 100;
const maxBackoffMs = 30_000;

/**
 * Runs user code under its timeout and retry policy. Errors come back as the code threw them
 * (the engine redacts what is not public); only a timeout is replaced, by `timeoutError`.
 */
export async function callWithPolicy<T>(call: PolicyCall<T>): Promise<T> {
  const attempts = call.retry?.attempts ?? 1;
  for (let attempt = 1; ; attempt++) {
    call.signal.throwIfAborted();
    try {
      return await attemptOnce(call, attempt);
    } catch (e) {
      if (attempt >= attempts || !shouldRetry(e, call)) throw asPublic(e);
      const retryInMs = backoffDelay(attempt, { initialMs: call.retry?.backoffMs ?? defaultBackoffMs, maxMs: maxBackoffMs });
      await call.onRetry?.({ attempt, error: asPublic(e), retryInMs });
      // An abort meanwhile ends the wait; the loop's first line then rejects with the run's reason.
      await sleep(retryInMs, call.signal);
    }
  }
}

/**
 * One try, raced against its timeout and the run's abort: user code that ignores its signal
 * cannot hold the node (or the run's shutdown) hostage. Its late result is dropped.
 */
async function attemptOnce<T>(call: PolicyCall<T>, attempt: number): Promise<T> {
  const controller = new AbortController();
  const onRunAbort = () => controller.abort(call.signal.reason);
  call.signal.addEventListener('abort', onRunAbort, { once: true });
  const timer =
    call.timeoutMs === undefined
      ? undefined
      : setTimeout(() => controller.abort(call.timeoutError(call.timeoutMs as number)), call.timeoutMs);
  try {
    return await new Promise<T>((resolve, reject) => {
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
      // Through a promise, so a synchronous throw in user code is a rejection like any other.
      Promise.resolve()
        .then(() => call.run(controller.signal, attempt))
        .then(resolve, reject);
    });
  } finally {
    clearTimeout(timer);
    call.signal.removeEventListener('abort', onRunAbort);
  }
}

function shouldRetry(error: unknown, call: PolicyCall<unknown>): boolean {
  if (call.signal.aborted) return false;
  // validation_failed, canceled …: the same call would fail the same way.
  if (!isRetryable(error)) return false;
  if (!call.retry?.retryOn) return true;
  try {
    return call.retry.retryOn(error) === true;
  } catch {
    return false;
  }
}

/**
 * Plugins need not import Spindle: an error named `PublicError` from their own class becomes the
 * engine's `PublicError`, whose message is shown instead of redacted. Anything else is untouched.
 */
export function asPublic(error: unknown): unknown {
  if (error instanceof PublicError || error === null || typeof error !== 'object') return error;
  // Duck-typed: a plugin's error may come from another realm or copy of the class.
  const { name, message, data, stack } = error as { name?: unknown; message?: unknown; data?: unknown; stack?: string };
  if (name !== 'PublicError' || typeof message !== 'string') return error;
  const converted = new PublicError(message, data !== null && typeof data === 'object' ? (data as Record<string, unknown>) : undefined);
  converted.stack = stack;
  converted.cause = error;
  return converted;
}
