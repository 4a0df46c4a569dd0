/**
 * The one back-off and the one abortable sleep of the project (the bus's retries, the database's
 * first connect, a plugin call's retries, the client's reconnects, webhook deliveries). Timers only,
 * no I/O and no Node API: the console's client uses them too.
 */

/** Doubling waits from `initialMs`, capped at `maxMs`, each spread by ± `jitter` (a fraction, default none). */
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  /** 0.2: each wait is 80–120 % of the formula's, so many clients that failed together do not retry together. */
  jitter?: number;
}

/** The wait before retry number `attempt` (1 for the first retry). */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const delay = Math.min(policy.initialMs * 2 ** Math.max(0, attempt - 1), policy.maxMs);
  const jitter = policy.jitter ?? 0;
  return jitter === 0 ? delay : Math.round(delay * (1 - jitter + random() * 2 * jitter));
}

/**
 * Resolves after `ms`, or at once when `signal` aborts (then early, never rejecting: a caller that must
 * stop on abort checks `signal.throwIfAborted()` after it), so an aborted wait frees its timer.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
