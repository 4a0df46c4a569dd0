import { z } from 'zod';
import { describeIssues, zodFieldIssues } from './field-issues';
import {
  runEventEnvelopeSchema,
  runEventSchema,
  runEventTypes,
  type RunEvent,
  type RunEventHandlers,
  type RunEventType,
} from './run-events';

export type RunEventCheck = { ok: true; event: RunEvent } | { ok: false; reason: string };

/**
 * Which event types a reader folds, decided type by type (a new type does not compile until each
 * reader says whether it reads it). A reader checks the data of the types it reads; of the others
 * it checks the envelope alone, which is all it looks at (their seq, their run, whether they end it).
 */
export type RunEventSelection = Readonly<Record<RunEventType, boolean>>;

/** Every type read: what a reader that serves or folds every event (the trace, a stream) checks. */
export const EVERY_RUN_EVENT: RunEventSelection = readsOnly(runEventTypes);

/** The types either of two selections reads. */
export function eitherSelection(a: RunEventSelection, b: RunEventSelection): RunEventSelection {
  return readsOnly(runEventTypes.filter((type) => a[type] || b[type]));
}

/**
 * The one check of a parsed JSON value against the run event schema, shared by every reader of
 * events (the bus decoder, the HTTP client). With a `selection`, an event of a type the reader
 * does not read has its envelope checked and its data passed through unread. Never throws: the
 * reason names the first few fields at fault.
 */
export function checkRunEvent(value: unknown, selection?: RunEventSelection): RunEventCheck {
  const type = (value as { type?: unknown } | null)?.type;
  const whole = selection === undefined || typeof type !== 'string' || selection[type as RunEventType] !== false;
  if (whole) return reported(runEventSchema.safeParse(value));
  const parsed = runEventEnvelopeSchema.safeParse(value);
  return parsed.success ? { ok: true, event: value as RunEvent } : reported(parsed);
}

function reported(parsed: z.ZodSafeParseResult<unknown>): RunEventCheck {
  if (parsed.success) return { ok: true, event: parsed.data as RunEvent };
  const issues = zodFieldIssues(parsed.error.issues.slice(0, 5), { whole: '(root)' });
  return { ok: false, reason: `not a run event: ${describeIssues(issues)}` };
}

/** Reads the listed types and only those. */
export function readsOnly(types: readonly RunEventType[]): RunEventSelection {
  return Object.freeze(Object.fromEntries(runEventTypes.map((type) => [type, types.includes(type)])) as Record<RunEventType, boolean>);
}

/** What a fold written as a handler map reads: every type whose handler is not its shared `ignore`. */
export function readsOfHandlers<R>(handlers: RunEventHandlers<R>, ignore: (...args: never[]) => R): RunEventSelection {
  return readsOnly(runEventTypes.filter((type) => handlers[type] !== ignore));
}
