import { checkRunEvent, type BusNames, type RunEvent, type RunEventSelection } from '@spindle/contracts';
import type { Bus } from './bus-connection';
import { parseMessageJson } from './message-json';
import { hasPayloadRef, resolvePayload } from './run-payloads';

export type DecodeFailure = 'invalid_json' | 'invalid_event' | 'wrong_subject' | 'missing_payload';
/**
 * One message of a run's log: one event, or a batch of consecutive events one writer stored
 * together (group commit). `bytes`: the message's size as written, payloads included, counted
 * against the run's log limit.
 */
export type DecodedRunMessage = { ok: true; events: RunEvent[]; bytes: number } | { ok: false; kind: DecodeFailure; reason: string };

/**
 * The one decoder every reader uses (run log reader, live feed, projections, the writer's own
 * conflict check): UTF-8 JSON holding one event or an array of them, each payload kept in the
 * object store resolved, then checked as strictly as the writer checks it. A message that fails
 * any of it is not part of the log, as a whole: a batch is written by one publish, so one bad
 * event in it means the message was not a writer's. A missing payload is a failure of this
 * message, not of the reader; an object store that does not answer is thrown (the bus is down).
 * A reader that folds only some types (`reads`) has the others' envelopes checked, not their data.
 */
export async function decodeRunMessage(
  bus: Bus,
  msg: { subject: string; data: Uint8Array },
  reads?: RunEventSelection,
): Promise<DecodedRunMessage> {
  const json = parseMessageJson(msg.data);
  if (!json.ok) return { ok: false, kind: 'invalid_json', reason: json.reason };
  const items = Array.isArray(json.value) ? json.value : [json.value];
  const resolved: unknown[] = [];
  let bytes = msg.data.byteLength;
  for (const item of items) {
    // Nearly every event carries its data: only a reference costs a trip to the object store.
    if (!hasPayloadRef(item)) {
      resolved.push(item);
      continue;
    }
    try {
      const { value, addedBytes } = await resolvePayload(bus, item);
      resolved.push(value);
      bytes += addedBytes;
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'missing_payload') throw e;
      return { ok: false, kind: 'missing_payload', reason: (e as Error).message };
    }
  }
  return checkRunMessage(msg.subject, resolved, bytes, bus.names, reads);
}

/**
 * The checks of one message's events (payloads resolved): each is a run event of the run its
 * subject names, and a batch is non-empty with consecutive seqs.
 */
function checkRunMessage(
  subject: string,
  items: readonly unknown[],
  bytes: number,
  names: BusNames,
  reads: RunEventSelection | undefined,
): DecodedRunMessage {
  if (items.length === 0) return { ok: false, kind: 'invalid_event', reason: 'an empty batch of events' };
  const subjectRunId = names.runIdFromEventSubject(subject);
  const events: RunEvent[] = [];
  for (const [i, item] of items.entries()) {
    const where = items.length > 1 ? `event ${i + 1} of a batch: ` : '';
    const checked = checkRunEvent(item, reads);
    if (!checked.ok) return { ok: false, kind: 'invalid_event', reason: where + checked.reason };
    const { event } = checked;
    if (subjectRunId !== event.runId) {
      return { ok: false, kind: 'wrong_subject', reason: `${where}event of run "${event.runId}" published on ${subject}` };
    }
    const previous = events.at(-1);
    if (previous && event.seq !== previous.seq + 1) {
      return { ok: false, kind: 'invalid_event', reason: `${where}seq ${event.seq} does not follow seq ${previous.seq}` };
    }
    events.push(event);
  }
  return { ok: true, events, bytes };
}
