import {
  DEFAULT_TENANT,
  onRunEvent,
  type Actor,
  type AnswerMode,
  type InputForm,
  type PendingToolCall,
  type RunEvent,
  type RunEventHandlers,
  readsOfHandlers,
  type RunEventSelection,
} from '@spindle/contracts';

/** A request as first asked; its workflow comes from the run's `run.queued`. */
export interface AskedRequest {
  requestId: string;
  runId: string;
  nodeId: string;
  kind: 'input' | 'approval';
  prompt: string;
  form: InputForm | null;
  call: PendingToolCall | null;
  mode: AnswerMode;
  requestedAt: string;
  expiresAt: string | null;
  seq: number;
}

export interface RequestAnswer {
  requestId: string;
  runId: string;
  status: 'answered' | 'timed_out';
  answeredAt: string;
  answeredBy: Actor;
  answer: Record<string, unknown> | null;
}

/** What a stretch of run logs changes in the approval tables. */
export interface RequestChanges {
  queuedRuns: Array<{ runId: string; tenant: string; workflow: string }>;
  asked: AskedRequest[];
  /** In log order: only the first answer to a request closes it. */
  answers: RequestAnswer[];
  /** Runs that ended: their requests still pending are canceled. */
  endedRuns: Array<{ runId: string; status: 'completed' | 'failed' | 'canceled' }>;
}

/** Folds events (each run's in seq order) into row changes; events that ask nothing of a person change nothing. */
export function requestChanges(events: readonly RunEvent[]): RequestChanges {
  const changes: RequestChanges = { queuedRuns: [], asked: [], answers: [], endedRuns: [] };
  const on = changesOf(changes);
  for (const e of events) onRunEvent(on, e);
  return changes;
}

const none = () => undefined;

/** What each event type means to the requests: one decision per type. */
function changesOf(changes: RequestChanges): RunEventHandlers {
  const origin = (e: RunEvent) => ({ runId: e.runId, nodeId: e.nodeId ?? '', requestedAt: e.at, seq: e.seq });
  const ended = (status: 'completed' | 'failed' | 'canceled') => (e: RunEvent) => void changes.endedRuns.push({ runId: e.runId, status });
  return {
    'run.queued': (e) =>
      void changes.queuedRuns.push({ runId: e.runId, tenant: e.data.tenant ?? DEFAULT_TENANT, workflow: e.data.workflow.name }),
    'input.requested': (e) =>
      void changes.asked.push({
        ...origin(e),
        requestId: e.data.requestId,
        kind: 'input',
        prompt: e.data.prompt,
        form: e.data.form,
        call: null,
        mode: e.data.mode,
        expiresAt: e.data.expiresAt ?? null,
      }),
    'approval.requested': (e) =>
      void changes.asked.push({
        ...origin(e),
        requestId: e.data.requestId,
        kind: 'approval',
        prompt: e.data.prompt,
        form: null,
        call: e.data.call,
        mode: e.data.mode,
        expiresAt: e.data.expiresAt ?? null,
      }),
    'input.answered': (e) =>
      void changes.answers.push({
        requestId: e.data.requestId,
        runId: e.runId,
        status: e.data.timedOut ? 'timed_out' : 'answered',
        answeredAt: e.at,
        answeredBy: e.data.answeredBy,
        answer: e.data.answer ?? null,
      }),
    'approval.resolved': (e) => {
      const { decision, message, callId, name, argumentsHash } = e.data;
      changes.answers.push({
        requestId: e.data.requestId,
        runId: e.runId,
        status: e.data.timedOut ? 'timed_out' : 'answered',
        answeredAt: e.at,
        answeredBy: e.data.answeredBy,
        answer: e.data.timedOut ? null : { decision, ...(message !== undefined && { message }), callId, name, argumentsHash },
      });
    },
    'run.completed': ended('completed'),
    'run.failed': ended('failed'),
    'run.canceled': ended('canceled'),
    'run.started': none,
    'run.awaiting': none,
    'run.resumed': none,
    'run.yielded': none,
    'node.started': none,
    'node.completed': none,
    'node.failed': none,
    'model.started': none,
    'model.completed': none,
    'model.failed': none,
    'tool.called': none,
    'tool.returned': none,
    'loop.iteration': none,
    'branch.started': none,
    'branch.completed': none,
    'checkpoint.saved': none,
    'context.truncated': none,
    'memory.compacted': none,
    'retrieval.completed': none,
    'usage.reported': none,
    'attempt.failed': none,
    custom: none,
  };
}

/** The event types whose data the requests are made of (the fold's own map says). */
export const requestReads: RunEventSelection = readsOfHandlers(changesOf({ queuedRuns: [], asked: [], answers: [], endedRuns: [] }), none);
