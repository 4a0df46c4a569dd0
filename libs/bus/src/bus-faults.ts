import { backoffDelay, isSpindleError, sleep, SpindleError } from '@spindle/contracts';
import { isStoreFull, storageFull, storeRoom } from './store-room';

/** 100 ms doubling to 2 s. */
const BUS_BACKOFF = { initialMs: 100, maxMs: 2_000 };

const TRANSIENT = new Set([
  'TimeoutError',
  'NoRespondersError',
  'ConnectionError',
  'ClosedConnectionError',
  'DrainingConnectionError',
  'RequestError',
  'JetStreamNotEnabled',
]);

/**
 * NATS did not answer (down, restarting, JetStream recovering, this connection closing): the
 * operation may succeed later and says nothing about the data or the run.
 */
export function isBusFault(e: unknown): boolean {
  if (isSpindleError(e)) return e.code === 'bus_unavailable';
  // Also a 503 from JetStream, but no wait of seconds makes room: refused at once (`storage_full`).
  if (isStoreFull(e)) return false;
  const err = e as { name?: unknown; status?: unknown; code?: unknown; message?: unknown };
  if (typeof err?.name === 'string' && TRANSIENT.has(err.name)) return true;
  // JetStream answers 503 while it has no leader for the stream (restart, recovery).
  if (err?.name === 'JetStreamApiError' && err.status === 503) return true;
  if (err?.name === 'JetStreamStatusError' && (err.code === 503 || err.code === 408)) return true;
  return (
    typeof err?.message === 'string' &&
    /\b(timeout|timed out|no responders|disconnect|connection closed|connection draining)\b/i.test(err.message)
  );
}

/** The error as callers classify it: a bus fault becomes `bus_unavailable`, a full store `storage_full`, anything else stays. */
export function asBusFault(e: unknown, what: string): unknown {
  if (!isSpindleError(e) && isStoreFull(e)) return storageFull(e, what);
  if (isSpindleError(e) || !isBusFault(e)) return e;
  return new SpindleError('bus_unavailable', `NATS did not answer while ${what}: ${(e as Error).message}`, { cause: e });
}

export interface BusRetry {
  /** Give up (`bus_unavailable`) once NATS has not answered for this long. */
  retryForMs: number;
  /** Stop retrying at once (a runner past its shutdown grace). */
  signal?: AbortSignal;
}

/**
 * Runs `attempt` until it succeeds, fails for a reason that is not a bus fault, or the bus has
 * been unavailable for `retryForMs` (then `bus_unavailable`). Backs off from 100 ms to 2 s.
 * `attempt` must be safe to repeat (a message id, an expected position).
 */
export async function retryBusFaults<T>(what: string, attempt: () => Promise<T>, opts: BusRetry): Promise<T> {
  const deadline = Date.now() + opts.retryForMs;
  for (let retry = 1; ; retry++) {
    const wait = backoffDelay(retry, BUS_BACKOFF);
    try {
      const done = await attempt();
      storeRoom.stored();
      return done;
    } catch (e) {
      if (isStoreFull(e)) {
        storeRoom.refused();
        throw asBusFault(e, what);
      }
      if (!isBusFault(e)) throw e;
      if (opts.signal?.aborted || Date.now() + wait > deadline) throw asBusFault(e, what);
      await sleep(wait, opts.signal);
    }
  }
}
