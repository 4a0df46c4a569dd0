import { AckPolicy, DeliverPolicy, type Consumer, type ConsumerConfig, type JsMsg } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { Bus } from './bus-connection';
import { isNotFound } from './provision-streams';

export interface DurableSpec {
  stream: string;
  durable: string;
  filterSubject: string;
  ackWaitMs: number;
  maxDeliver?: number;
  maxAckPending?: number;
}

/** Creates the durable pull consumer if missing (idempotent) and returns a handle to it. */
export async function ensureDurable(bus: Bus, spec: DurableSpec): Promise<Consumer> {
  const config: Partial<ConsumerConfig> = {
    durable_name: spec.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: spec.filterSubject,
    ack_wait: nanos(spec.ackWaitMs),
    max_deliver: spec.maxDeliver ?? -1,
    max_ack_pending: spec.maxAckPending ?? 10_000,
  };
  try {
    const existing = await bus.jsm.consumers.info(spec.stream, spec.durable);
    // A consumer made by an older version keeps its old limits unless they are brought up to date.
    if (existing.config.max_deliver !== config.max_deliver || existing.config.ack_wait !== config.ack_wait) {
      await bus.jsm.consumers.update(spec.stream, spec.durable, { max_deliver: config.max_deliver, ack_wait: config.ack_wait });
    }
  } catch (e) {
    if (!isNotFound(e)) throw e;
    await bus.jsm.consumers.add(spec.stream, config);
  }
  return bus.js.consumers.get(spec.stream, spec.durable);
}

/**
 * Consumes a durable consumer until `signal` aborts, handing over batches: a batch closes when
 * it is full or when nothing more is waiting, so a burst is applied in large
 * batches and a lone event at once. `handle` acks what it processed. A deleted consumer
 * (projection rebuild) is recreated.
 */
export async function pullBatches(
  bus: Bus,
  spec: DurableSpec,
  handle: (batch: JsMsg[]) => Promise<void>,
  opts: {
    signal: AbortSignal;
    batchSize?: number;
    /**
     * After a batch smaller than `batchSize`, wait this long before taking the next, so a steady
     * trickle is applied in batches rather than one transaction per message. Adds at most this
     * much latency. A function is asked after each batch (a projection some decision waits on
     * lingers only while nothing does).
     */
    lingerMs?: number | (() => number);
    /**
     * Once a batch has its first message, wait this long for the messages that follow it (a run's
     * next events, other runs' at the same moment) before closing it: fewer, larger transactions
     * at every load, for at most this much latency. A projection nobody waits on can afford it.
     */
    gatherMs?: number;
    /**
     * How long a consume may go without a message or a batch while it is not handling one, before
     * it is checked for a stall (a batch left open, messages waiting on the server that never came)
     * and pulled again. Default 5 s.
     */
    stallMs?: number;
    onError: (e: unknown) => void;
    /** Told why a stalled consume was pulled again. */
    onStall?: (reason: string) => void;
  },
): Promise<void> {
  const batchSize = opts.batchSize ?? 500;
  const lingerOf = opts.lingerMs ?? 0;
  const linger = typeof lingerOf === 'number' ? () => lingerOf : lingerOf;
  const gather = opts.gatherMs ?? 0;
  const stallMs = opts.stallMs ?? 5_000;
  /**
   * A batch that fails (the store refused it for now: a deadlock, an outage) is handed back by
   * `handle` and comes again on the same consumer. Tearing the consumer down instead lost the
   * redeliveries the server sent to its last pull request until the ack wait ran out (30 s of a
   * stalled projection, longer when it kept happening).
   */
  const handleOnce = async (batch: JsMsg[]): Promise<boolean> => {
    try {
      await handle(batch);
      return true;
    } catch (e) {
      if (opts.signal.aborted || bus.nc.isClosed()) return true;
      opts.onError(e);
      return false;
    }
  };
  while (!opts.signal.aborted) {
    try {
      const consumer = await ensureDurable(bus, spec);
      // A deleted consumer (projection rebuild) must end the iterator so the loop can recreate it.
      const messages = await consumer.consume({ max_messages: batchSize * 2, abort_on_missing_resource: true });
      const stop = () => messages.stop();
      opts.signal.addEventListener('abort', stop, { once: true });
      let batch: JsMsg[] = [];
      const activity = { at: Date.now(), handling: false };
      const watch = watchForStall(
        bus,
        spec,
        stallMs,
        () => ({ ...activity, open: batch.length }),
        (reason) => {
          opts.onStall?.(reason);
          messages.stop();
        },
      );
      try {
        for await (const msg of messages) {
          activity.at = Date.now();
          if (batch.length === 0 && gather > 0) await delay(gather);
          batch.push(msg);
          // Close the batch when full, or when nothing is waiting: neither on the server nor in
          // this client's buffer (messages already pulled but not yet iterated).
          const drained = msg.info.pending === 0 && messages.getPending() <= 1;
          if (drained || batch.length >= batchSize) {
            const full = batch.length >= batchSize;
            activity.handling = true;
            const handled = await handleOnce(batch);
            activity.handling = false;
            activity.at = Date.now();
            batch = [];
            const wait = !handled ? 250 : full ? 0 : linger();
            if (wait > 0) await delay(wait);
          }
        }
        // What a stop left in hand (a stall, a shutdown) is handled before the consume is made again.
        if (batch.length > 0) await handle(batch);
      } finally {
        clearInterval(watch);
        opts.signal.removeEventListener('abort', stop);
        messages.stop();
      }
    } catch (e) {
      if (opts.signal.aborted || bus.nc.isClosed()) return;
      opts.onError(e);
    }
    if (!opts.signal.aborted) await delay(250);
  }
}

function delay(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Deletes a durable consumer (its position is lost: the next `ensureDurable` starts from the beginning); missing is fine. */
export async function deleteDurable(bus: Bus, spec: Pick<DurableSpec, 'stream' | 'durable'>): Promise<void> {
  await bus.jsm.consumers.delete(spec.stream, spec.durable).catch((e: unknown) => {
    if (!isNotFound(e)) throw e;
  });
}

/** What a durable consumer still has to deliver or see acknowledged; undefined while it does not exist. */
export async function durableBacklog(
  bus: Bus,
  spec: Pick<DurableSpec, 'stream' | 'durable'>,
): Promise<{ pending: number; ackPending: number } | undefined> {
  const info = await bus.jsm.consumers.info(spec.stream, spec.durable).catch((e: unknown) => {
    if (isNotFound(e)) return undefined;
    throw e;
  });
  return info && { pending: info.num_pending, ackPending: info.num_ack_pending };
}

/**
 * Why a quiet consume should be pulled again, or undefined: a batch left open (the server sends
 * no more until it is acked: a `maxAckPending` under the batch size), or messages waiting on the
 * server that this consume never received (its pull requests lost across a server restart).
 */
export function consumeStall(
  state: { quietMs: number; handling: boolean; open: number; numPending?: number },
  stallMs: number,
): string | undefined {
  if (state.handling || state.quietMs < stallMs) return undefined;
  if (state.open > 0) return `a batch of ${state.open} message(s) stayed open ${state.quietMs} ms with nothing more coming`;
  if ((state.numPending ?? 0) > 0) return `${state.numPending} message(s) waited ${state.quietMs} ms on the server and none came`;
  return undefined;
}

/** Checks a consume every `stallMs` (see `consumeStall`) and calls `onStall` when it should be pulled again. */
function watchForStall(
  bus: Bus,
  spec: DurableSpec,
  stallMs: number,
  state: () => { at: number; handling: boolean; open: number },
  onStall: (reason: string) => void,
): NodeJS.Timeout {
  const quiet = () => {
    const s = state();
    return { quietMs: Date.now() - s.at, handling: s.handling, open: s.open };
  };
  const timer = setInterval(() => {
    const first = quiet();
    if (first.handling || first.quietMs < stallMs) return;
    const asked =
      first.open > 0 ? Promise.resolve(undefined) : bus.jsm.consumers.info(spec.stream, spec.durable).then((i) => i.num_pending);
    void asked.then(
      (numPending) => {
        const reason = consumeStall({ ...quiet(), numPending }, stallMs);
        if (reason) onStall(reason);
      },
      () => undefined, // the consume's own errors say what is wrong with NATS
    );
  }, stallMs);
  timer.unref();
  return timer;
}
