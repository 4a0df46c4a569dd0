import { headers as natsHeaders } from '@nats-io/transport-node';
import type { JsMsg, StoredMsg } from '@nats-io/jetstream';
import type { Bus } from './bus-connection';

/**
 * Moves a message that failed validation to the dead-letter stream (kept, with why and where it
 * came from) and terminates it on its own stream, so one bad message never blocks or crashes a
 * consumer and is never silently lost.
 */
export async function deadLetter(bus: Bus, service: string, msg: JsMsg, why: string): Promise<void> {
  await publishDeadLetter(bus, service, { subject: msg.subject, data: msg.data, stream: msg.info.stream, seq: msg.seq }, why);
  // No reason on the terminate: nats-server 2.9 ignores a +TERM that carries one.
  msg.term();
}

/**
 * The same for a message no consumer holds any more (it ran out of deliveries while its runner
 * was gone): copied to the dead-letter stream, then removed from its own.
 */
export async function deadLetterStored(bus: Bus, service: string, stream: string, stored: StoredMsg, why: string): Promise<void> {
  await publishDeadLetter(bus, service, { subject: stored.subject, data: stored.data, stream, seq: stored.seq }, why);
  await bus.jsm.streams.deleteMessage(stream, stored.seq, false);
}

async function publishDeadLetter(
  bus: Bus,
  service: string,
  from: { subject: string; data: Uint8Array; stream: string; seq: number },
  why: string,
): Promise<void> {
  // Header values are one line of text.
  const reason = why
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/\s{2,}/g, ' ')
    .slice(0, 1_000);
  const h = natsHeaders();
  h.set('Spindle-Dlq-Reason', reason);
  h.set('Spindle-Dlq-Subject', from.subject);
  h.set('Spindle-Dlq-Stream', from.stream);
  h.set('Spindle-Dlq-Stream-Seq', String(from.seq));
  await bus.js.publish(bus.names.deadLetterSubject(service), from.data, { headers: h, msgID: `${from.stream}:${from.seq}:${service}` });
}
