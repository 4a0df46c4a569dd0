import { checkRunEvent, type BusNames, type RunEvent } from '@spindle/contracts';
import type { Bus } from './bus-connection';
import { parseMessageJson } from './message-json';
import { resolvePayload } from './run-payloads';

export type DecodeFailure = 'invalid_json' | 'invalid_event' | 'wrong_subject' | 'missing_payload';
/** `bytes`: the event's size as written (payload included), counted against the run's log limit. */
export type DecodedRunEvent = { ok: true; event: RunEvent; bytes: number } | { ok: false; kind: DecodeFailure; reason: string };

/**
 * One message of the events stream, checked as strictly as the log writer checks it: UTF-8 JSON,
 * the event schema, and the subject it was published on naming the same run. Anything else is
 * not an event of the log and is never served or projected as one.
 */
export function parseRunEvent(subject: string, data: Uint8Array, names: BusNames): DecodedRunEvent {
  const json = parseMessageJson(data);
  if (!json.ok) return { ok: false, kind: 'invalid_json', reason: json.reason };
  const checked = checkRunEvent(json.value);
  if (!checked.ok) return { ok: false, kind: 'invalid_event', reason: checked.reason };
  const { event } = checked;
  const subjectRunId = names.runIdFromEventSubject(subject);
  if (subjectRunId !== event.runId) {
    return { ok: false, kind: 'wrong_subject', reason: `event of run "${event.runId}" published on ${subject}` };
  }
  return { ok: true, event, bytes: data.byteLength };
}

/**
 * The one decoder every reader uses (run log reader, live feed, projections): resolves a payload
 * kept in the object store, then parses. A missing payload is a failure of this message, not of
 * the reader; an object store that does not answer is thrown (the bus is down, try again).
 */
export async function decodeRunEvent(bus: Bus, msg: { subject: string; data: Uint8Array }): Promise<DecodedRunEvent> {
  let data: Uint8Array;
  try {
    data = await resolvePayload(bus, msg.data);
  } catch (e) {
    if ((e as { code?: unknown }).code !== 'missing_payload') throw e;
    return { ok: false, kind: 'missing_payload', reason: (e as Error).message };
  }
  return parseRunEvent(msg.subject, data, bus.names);
}
