import type { RunEventDraft, RunEventType } from '@spindle/contracts';
import { maskSecretFields } from '@spindle/telemetry';

/**
 * Where each event type carries data of the workflow's own (inputs, state, outputs, messages,
 * tool arguments and results, answers): the fields a definition's `secrets` names are masked
 * inside these, never among the event's own fields. Every event type decides (a new one does
 * not compile until it says).
 */
const USER_DATA: { [T in RunEventType]: ReadonlyArray<keyof Extract<RunEventDraft, { type: T }>['data']> } = {
  'run.queued': ['input', 'state', 'parameters'],
  'run.started': [],
  'run.awaiting': [],
  'run.resumed': [],
  'run.yielded': [],
  'run.completed': ['output'],
  'run.failed': [],
  'run.canceled': [],
  'node.started': ['input'],
  'node.completed': ['output'],
  'node.failed': [],
  'model.started': ['messages'],
  'model.completed': ['toolCalls'],
  'model.failed': [],
  'tool.called': ['arguments'],
  'tool.returned': ['result'],
  'loop.iteration': [],
  'branch.started': [],
  'branch.completed': [],
  'input.requested': ['form'],
  'input.answered': ['answer'],
  'approval.requested': ['call'],
  'approval.resolved': [],
  'checkpoint.saved': ['changes', 'state'],
  'context.truncated': [],
  'memory.compacted': ['summary'],
  'retrieval.completed': ['query', 'chunks'],
  'usage.reported': ['label'],
  'attempt.failed': [],
  custom: [],
};

/** The draft with the values of the named fields masked inside its workflow data (the draft itself when none is there). */
export function maskSecretFieldsOf(draft: RunEventDraft, fields: ReadonlySet<string>): RunEventDraft {
  if (fields.size === 0) return draft;
  const data = draft.data as Record<string, unknown>;
  // A custom event's data is all the workflow's own.
  if (draft.type === 'custom') return { ...draft, data: maskSecretFields(data, fields) as typeof draft.data };
  const positions = new Set<string>(USER_DATA[draft.type] as readonly string[]);
  const entries = Object.entries(data).map(([key, value]) => [key, positions.has(key) ? maskSecretFields(value, fields) : value] as const);
  const changed = entries.some(([key, value]) => value !== data[key]);
  return changed ? ({ ...draft, data: Object.fromEntries(entries) } as RunEventDraft) : draft;
}

/** The field names a run's definition declares secret (`definition.secrets`), read defensively: the definition is data. */
export function secretFieldsOfDefinition(definition: unknown): ReadonlySet<string> {
  const secrets = (definition as { secrets?: unknown } | null | undefined)?.secrets;
  return new Set(Array.isArray(secrets) ? secrets.filter((s): s is string => typeof s === 'string' && s.length > 0) : []);
}
