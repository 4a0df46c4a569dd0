import {
  fileRefsIn as findFileRefs,
  onRunEvent,
  readsOfHandlers,
  type FileRef,
  type RunEvent,
  type RunEventHandlers,
  type RunEventSelection,
} from '@spindle/contracts';

/** How deep and how wide a value is searched for references: the log's values are bounded, this bounds the search too. */
const LIMITS = { maxDepth: 64, maxRefs: 1_024 };

/** Every distinct file reference inside a value, up to the bounds above. */
export function fileRefsIn(value: unknown): FileRef[] {
  return findFileRefs(value, LIMITS);
}

const none = (): FileRef[] => [];

/**
 * Where a run's log can carry file references, by event type: a run holds a file from the first
 * event that names it. What a node or checkpoint carries came from one of these (input, an
 * answer, a tool's result), so those events add nothing new and are not searched.
 */
const refsByEvent: RunEventHandlers<FileRef[]> = {
  'run.queued': (e) => fileRefsIn([e.data.input, e.data.state]),
  'run.started': none,
  'run.awaiting': none,
  'run.resumed': none,
  'run.yielded': none,
  'run.completed': none,
  'run.failed': none,
  'run.canceled': none,
  'node.started': none,
  'node.completed': none,
  'node.failed': none,
  'model.started': (e) => fileRefsIn(e.data.attachments ?? []),
  'model.completed': none,
  'model.failed': none,
  'tool.called': none,
  'tool.returned': (e) => fileRefsIn(e.data.result),
  'loop.iteration': none,
  'branch.started': none,
  'branch.completed': none,
  'input.requested': none,
  'input.answered': (e) => fileRefsIn(e.data.answer),
  'approval.requested': none,
  'approval.resolved': none,
  'checkpoint.saved': none,
  'context.truncated': none,
  'memory.compacted': none,
  'retrieval.completed': none,
  'usage.reported': none,
  'attempt.failed': none,
  custom: none,
};

/** The event types that can carry a reference (the map above says). */
export const fileRefReads: RunEventSelection = readsOfHandlers(refsByEvent, none);

/** The files an event refers to (a run that logged it holds them until it is erased). */
export function fileRefsOf(event: RunEvent): FileRef[] {
  return onRunEvent(refsByEvent, event);
}
