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
    await bus.jsm.consumers.info(spec.stream, spec.durable);
  } catch (e) {
    if (!isNotFound(e)) throw e;
    await bus.jsm.consumers.add(spec.stream, config);
  }
  return bus.js.consumers.get(spec.stream, spec.durable);
}

/**
 * Pulls batches from a durable consumer until `signal` aborts and hands each batch to `handle`,
 * which acks what it processed. A deleted consumer (projection rebuild) is recreated.
 */
export async function pullBatches(
  bus: Bus,
  spec: DurableSpec,
  handle: (batch: JsMsg[]) => Promise<void>,
  opts: { signal: AbortSignal; batchSize?: number; expiresMs?: number; onError: (e: unknown) => void },
): Promise<void> {
  let consumer = await ensureDurable(bus, spec);
  while (!opts.signal.aborted) {
    try {
      const batch: JsMsg[] = [];
      const iter = await consumer.fetch({ max_messages: opts.batchSize ?? 500, expires: opts.expiresMs ?? 1_000 });
      for await (const msg of iter) batch.push(msg);
      if (batch.length > 0) await handle(batch);
    } catch (e) {
      if (opts.signal.aborted || bus.nc.isClosed()) return;
      opts.onError(e);
      await delay(500);
      consumer = await ensureDurable(bus, spec).catch(() => consumer);
    }
  }
}

function delay(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
