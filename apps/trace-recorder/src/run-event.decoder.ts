import { runEventSchema, type BusNames, type RunEvent } from '@spindle/contracts';

export type DecodedRunEvent = { ok: true; event: RunEvent } | { ok: false; kind: 'invalid_json' | 'invalid_event' | 'wrong_subject'; reason: string };

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * One message of the events stream, checked as strictly as the log writer checks it: JSON, the
 * event schema, and the subject it was published on naming the same run. Anything else is not
 * an event of the log and must not be projected.
 */
export function decodeRunEvent(subject: string, data: Uint8Array, names: BusNames): DecodedRunEvent {
  let json: unknown;
  try {
    json = JSON.parse(decoder.decode(data));
  } catch (e) {
    return { ok: false, kind: 'invalid_json', reason: `invalid JSON: ${(e as Error).message}` };
  }
  const parsed = runEventSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    return { ok: false, kind: 'invalid_event', reason: `not a run event: ${issues.join('; ')}` };
  }
  const event = parsed.data as RunEvent;
  const subjectRunId = names.runIdFromEventSubject(subject);
  if (subjectRunId !== event.runId) {
    return { ok: false, kind: 'wrong_subject', reason: `event of run "${event.runId}" published on ${subject}` };
  }
  return { ok: true, event };
}
