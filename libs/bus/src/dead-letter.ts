import { headers as natsHeaders } from '@nats-io/transport-node';
import type { JsMsg } from '@nats-io/jetstream';
import type { Bus } from './bus-connection';

/**
 * Moves a message that failed validation to the dead-letter stream (kept, with why and where it
 * came from) and terminates it on its own stream, so one bad message never blocks or crashes a
 * consumer and is never silently lost.
 */
export async function deadLetter(bus: Bus, service: string, msg: JsMsg, why: string): Promise<void> {
  // Header values are one line of text.
  const reason = why.replace(/[\r\n\t]+/g, ' ').replace(/\s{2,}/g, ' ').slice(0, 1_000);
  const h = natsHeaders();
  h.set('Spindle-Dlq-Reason', reason);
  h.set('Spindle-Dlq-Subject', msg.subject);
  h.set('Spindle-Dlq-Stream', msg.info.stream);
  h.set('Spindle-Dlq-Stream-Seq', String(msg.seq));
  await bus.js.publish(bus.names.deadLetterSubject(service), msg.data, { headers: h, msgID: `${msg.info.stream}:${msg.seq}:${service}` });
  // No reason on the terminate: nats-server 2.9 ignores a +TERM that carries one.
  msg.term();
}
