import { z } from 'zod';
import { runEventSchemas, type RunEvent, type RunEventDraft, type RunEventType } from './run-events';

/** What the log's writer gives an event: its run, its place in the log, when. */
export interface EventStamp {
  runId: string;
  seq: number;
  at: string;
}

/**
 * The event a writer appends: the draft's data checked against its type's schema (it carries
 * what came from outside: outputs, results, answers, usage) and the envelope laid out as the
 * schema lays it out, from the stamp the writer made and the span and path the engine made
 * (typed, never from outside). The result is what `runEventSchema.parse` gives for the same
 * draft (a property test holds it to that) at a quarter of the cost: the full parse of every
 * envelope was a top frame of the runner. Throws the schema's `ZodError`, paths under `data`.
 */
export function sealRunEvent(draft: RunEventDraft, stamp: EventStamp): RunEvent {
  // Own keys only: a type such as `constructor` names no schema, whatever the object inherits.
  const schema = Object.hasOwn(runEventSchemas, draft.type)
    ? (runEventSchemas as Record<string, (typeof runEventSchemas)[RunEventType]>)[draft.type]
    : undefined;
  if (!schema)
    throw new z.ZodError([{ code: 'custom', path: ['type'], message: `unknown event type "${String(draft.type)}"`, input: draft.type }]);
  const data = schema.shape.data.safeParse(draft.data);
  if (!data.success) throw new z.ZodError(data.error.issues.map((issue) => ({ ...issue, path: ['data', ...issue.path] })));
  const { nodeId, spanId, parentSpanId, path, iteration, branchId } = draft;
  return {
    runId: stamp.runId,
    seq: stamp.seq,
    at: stamp.at,
    ...(nodeId !== undefined && { nodeId }),
    spanId,
    ...(parentSpanId !== undefined && { parentSpanId }),
    path,
    ...(iteration !== undefined && { iteration }),
    ...(branchId !== undefined && { branchId }),
    type: draft.type,
    data: data.data,
  } as RunEvent;
}
