import { isTerminalEvent, type AnswerMode, type InputForm, type PendingToolCall, type RunEvent } from '@spindle/contracts';

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
  answeredBy: string;
  answer: Record<string, unknown> | null;
}

/** What a stretch of run logs changes in the approval tables. */
export interface RequestChanges {
  queuedRuns: Array<{ runId: string; workflow: string }>;
  asked: AskedRequest[];
  /** In log order: only the first answer to a request closes it. */
  answers: RequestAnswer[];
  /** Runs that ended: their requests still pending are canceled. */
  endedRuns: Array<{ runId: string; status: 'completed' | 'failed' | 'canceled' }>;
}

/** Folds events (each run's in seq order) into row changes; events that ask nothing of a person are ignored. */
export function requestChanges(events: readonly RunEvent[]): RequestChanges {
  const changes: RequestChanges = { queuedRuns: [], asked: [], answers: [], endedRuns: [] };
  for (const e of events) {
    const origin = { runId: e.runId, nodeId: e.nodeId ?? '', requestedAt: e.at, seq: e.seq };
    switch (e.type) {
      case 'run.queued':
        changes.queuedRuns.push({ runId: e.runId, workflow: e.data.workflow.name });
        break;
      case 'input.requested':
        changes.asked.push({
          ...origin,
          requestId: e.data.requestId,
          kind: 'input',
          prompt: e.data.prompt,
          form: e.data.form,
          call: null,
          mode: e.data.mode,
          expiresAt: e.data.expiresAt ?? null,
        });
        break;
      case 'approval.requested':
        changes.asked.push({
          ...origin,
          requestId: e.data.requestId,
          kind: 'approval',
          prompt: e.data.prompt,
          form: null,
          call: e.data.call,
          mode: e.data.mode,
          expiresAt: e.data.expiresAt ?? null,
        });
        break;
      case 'input.answered':
        changes.answers.push({
          requestId: e.data.requestId,
          runId: e.runId,
          status: e.data.timedOut ? 'timed_out' : 'answered',
          answeredAt: e.at,
          answeredBy: e.data.answeredBy,
          answer: e.data.answer ?? null,
        });
        break;
      case 'approval.resolved': {
        const { decision, message, callId, name, argumentsHash } = e.data;
        changes.answers.push({
          requestId: e.data.requestId,
          runId: e.runId,
          status: e.data.timedOut ? 'timed_out' : 'answered',
          answeredAt: e.at,
          answeredBy: e.data.answeredBy,
          answer: e.data.timedOut ? null : { decision, ...(message !== undefined && { message }), callId, name, argumentsHash },
        });
        break;
      }
      default:
        if (isTerminalEvent(e))
          changes.endedRuns.push({ runId: e.runId, status: e.type.slice('run.'.length) as 'completed' | 'failed' | 'canceled' });
    }
  }
  return changes;
}
