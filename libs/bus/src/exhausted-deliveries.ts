import { deadLetterStored } from './dead-letter';
import type { Bus } from './bus-connection';
import { parseMessageJson } from './message-json';
import type { LiveSubscription } from './run-live-channels';

/** What the server says when a message was not acknowledged within its last delivery. */
interface MaxDeliveriesAdvisory {
  stream: string;
  consumer: string;
  stream_seq: number;
  deliveries: number;
}

export interface ExhaustedDeliveriesOptions {
  /** Names the dead-letter subject. */
  service: string;
  stream: string;
  durable: string;
  onDeadLettered(streamSeq: number, reason: string): void;
  onError(error: unknown): void;
}

/**
 * A message whose consumer died during its last allowed delivery (a run that crashes every
 * runner it reaches) is never delivered again; the server says so in an advisory. One member of
 * the queue group moves the message to the dead-letter stream with the reason, so it is neither
 * lost nor stuck in a work queue.
 */
export function deadLetterExhaustedDeliveries(bus: Bus, opts: ExhaustedDeliveriesOptions): LiveSubscription {
  const subject = `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${opts.stream}.${opts.durable}`;
  const subscription = bus.nc.subscribe(subject, {
    queue: `${opts.durable}-advisories`,
    callback: (err, msg) => {
      const advisory = err ? undefined : parseMessageJson(msg.data);
      if (!advisory?.ok) return;
      void moveToDeadLetters(bus, opts, advisory.value as MaxDeliveriesAdvisory).catch((e: unknown) => opts.onError(e));
    },
  });
  return { close: () => subscription.unsubscribe() };
}

async function moveToDeadLetters(bus: Bus, opts: ExhaustedDeliveriesOptions, advisory: MaxDeliveriesAdvisory): Promise<void> {
  if (advisory.stream !== opts.stream || !Number.isSafeInteger(advisory.stream_seq)) return;
  const stored = await bus.jsm.streams.getMessage(advisory.stream, { seq: advisory.stream_seq }).catch(() => null);
  // Already settled by the consumer that held its last delivery.
  if (!stored) return;
  const reason = `not acknowledged after ${advisory.deliveries} deliveries (its consumers stopped while handling it)`;
  await deadLetterStored(bus, opts.service, advisory.stream, stored, reason);
  opts.onDeadLettered(advisory.stream_seq, reason);
}
