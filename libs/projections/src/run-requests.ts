import { isTerminalEvent, type RunEvent, type RunEventOf } from '@spindle/contracts';

export type RequestEvent = RunEventOf<'input.requested'> | RunEventOf<'approval.requested'>;
export type AnswerEvent = RunEventOf<'input.answered'> | RunEventOf<'approval.resolved'>;

/** A request for a person as the log tells it: what was asked, and every answer since. */
export interface RequestInLog {
  requestId: string;
  kind: 'input' | 'approval';
  requested: RequestEvent;
  answers: AnswerEvent[];
}

/** Every request of a run's log, by request id, with its answers in log order. */
export function requestsInLog(events: readonly RunEvent[]): Map<string, RequestInLog> {
  const requests = new Map<string, RequestInLog>();
  for (const e of events) {
    if (e.type === 'input.requested' || e.type === 'approval.requested') {
      // A resumed run re-reaching the same request does not ask again, so the first one counts.
      if (!requests.has(e.data.requestId))
        requests.set(e.data.requestId, {
          requestId: e.data.requestId,
          kind: e.type === 'input.requested' ? 'input' : 'approval',
          requested: e,
          answers: [],
        });
    } else if (e.type === 'input.answered' || e.type === 'approval.resolved') {
      requests.get(e.data.requestId)?.answers.push(e);
    }
  }
  return requests;
}

/** Where a run stands for someone who wants to answer it or resume it. */
export type RunPhase =
  | { phase: 'ended'; terminal: RunEvent }
  /** Waiting since `awaitingSeq`; `answeredSince` lists answers appended after it. */
  | { phase: 'waiting'; awaitingSeq: number; answeredSince: AnswerEvent[] }
  /** Handed back by a runner shutting down, not yet taken by another. */
  | { phase: 'yielded'; yieldedSeq: number }
  | { phase: 'queued' }
  /** A runner holds it (or held it and died): `attempt` counts executions since it last waited. */
  | { phase: 'running'; attempt: number };

export function runPhase(events: readonly RunEvent[]): RunPhase {
  const terminal = events.find(isTerminalEvent);
  if (terminal) return { phase: 'ended', terminal };
  let attempt = 0;
  let answered: AnswerEvent[] = [];
  let waitingAt: number | undefined;
  let yieldedAt: number | undefined;
  for (const e of events) {
    if (e.type === 'run.awaiting') {
      waitingAt = e.seq;
      yieldedAt = undefined;
      answered = [];
      attempt = 0;
    } else if (e.type === 'run.yielded') {
      yieldedAt = e.seq;
      attempt = 0;
    } else if (e.type === 'input.answered' || e.type === 'approval.resolved') {
      if (waitingAt !== undefined) answered.push(e);
    } else if (e.type === 'run.started' || e.type === 'run.resumed') {
      waitingAt = undefined;
      yieldedAt = undefined;
      attempt = e.type === 'run.resumed' && e.data.reason === 'worker_lost' ? e.data.attempt : 1;
    } else if (e.type !== 'run.queued' && waitingAt !== undefined) {
      // Anything else after `run.awaiting` means a runner has the run again.
      waitingAt = undefined;
    }
  }
  if (waitingAt !== undefined) return { phase: 'waiting', awaitingSeq: waitingAt, answeredSince: answered };
  if (yieldedAt !== undefined) return { phase: 'yielded', yieldedSeq: yieldedAt };
  if (attempt === 0) return { phase: 'queued' };
  return { phase: 'running', attempt };
}

/** The requests of a run's log nobody has answered yet, as a client is told of them: what each asks, and its form or call. */
export function openRequestsOf(events: readonly RunEvent[]) {
  return [...requestsInLog(events).values()]
    .filter((r) => r.answers.length === 0)
    .map(({ requestId, requested }) =>
      requested.type === 'input.requested'
        ? { requestId, kind: 'input' as const, prompt: requested.data.prompt, form: requested.data.form }
        : { requestId, kind: 'approval' as const, prompt: requested.data.prompt, call: requested.data.call },
    );
}
