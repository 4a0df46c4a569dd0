import {
  type Schedule,
  type ScheduleFiring,
  type Thread,
  type ThreadRunStatus,
  type WebhookDelivery,
  actorLabel,
} from '@spindle/contracts';

/** The status pill classes the console's stylesheet has (`.status.<tone>`). */
export type Tone = 'completed' | 'failed' | 'running' | 'canceled' | 'waiting';

const THREAD_RUN_TONES: Record<ThreadRunStatus, Tone> = {
  pending: 'waiting',
  queued: 'waiting',
  running: 'running',
  awaiting_input: 'waiting',
  awaiting_approval: 'waiting',
  completed: 'completed',
  failed: 'failed',
  canceled: 'canceled',
  rolled_back: 'canceled',
};

/** Who made a thread, named as the console names any actor (its name; its id only when it has none). */
export function threadCreator(thread: Pick<Thread, 'createdBy'>): string {
  return actorLabel(thread.createdBy);
}

/** A run's place on its thread as a pill: `rolled back` is left out of the thread's state. */
export function threadRunBadge(status: ThreadRunStatus): { label: string; tone: Tone } {
  return { label: status.replace('_', ' '), tone: THREAD_RUN_TONES[status] };
}

const FIRING_TONES: Record<ScheduleFiring['outcome'], Tone> = {
  started: 'completed',
  skipped: 'canceled',
  failed: 'failed',
  pending: 'waiting',
};

export interface FiringRow {
  fireAt: string;
  outcome: ScheduleFiring['outcome'];
  tone: Tone;
  runId: string | null;
  detail: string;
}

export function firingRows(firings: readonly ScheduleFiring[]): FiringRow[] {
  return firings.map((f) => ({
    fireAt: f.fireAt,
    outcome: f.outcome,
    tone: FIRING_TONES[f.outcome],
    runId: f.runId,
    detail: f.detail ?? '',
  }));
}

/** Which of a schedule's buttons apply: pause or resume (never both), and trigger always. */
export function scheduleControls(s: Pick<Schedule, 'paused'>): { pause: boolean; resume: boolean; trigger: boolean } {
  return { pause: !s.paused, resume: s.paused, trigger: true };
}

export interface AttemptRow {
  attempt: number;
  at: string;
  /** `HTTP 500`, or `no answer` when the receiver was not reached. */
  answer: string;
  ok: boolean;
  error: string | null;
  durationMs: number;
  response: string | null;
}

export interface DeliveryRow {
  deliveryId: string;
  eventType: string;
  runId: string;
  status: WebhookDelivery['status'];
  tone: Tone;
  /** `delivered on attempt 2`, `retrying (3 attempts)`, `gave up after 7 attempts`. */
  summary: string;
  /** The last attempt's error or status: why it is not delivered yet. */
  lastProblem: string | null;
  nextAttemptAt: string | null;
  attempts: AttemptRow[];
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function deliveryRows(deliveries: readonly WebhookDelivery[]): DeliveryRow[] {
  return deliveries.map((d) => {
    const attempts = d.attempts.map((a) => ({
      attempt: a.attempt,
      at: a.at,
      answer: a.statusCode === null ? 'no answer' : `HTTP ${a.statusCode}`,
      ok: a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300,
      error: a.error,
      durationMs: a.durationMs,
      response: a.response,
    }));
    const last = attempts.at(-1);
    const summaries: Record<WebhookDelivery['status'], string> = {
      delivered: `delivered on attempt ${last?.attempt ?? 1}`,
      pending: attempts.length === 0 ? 'not tried yet' : `retrying (${plural(attempts.length, 'attempt')})`,
      dead: `gave up after ${plural(attempts.length, 'attempt')}`,
      canceled: `canceled after ${plural(attempts.length, 'attempt')}`,
    };
    const tones: Record<WebhookDelivery['status'], Tone> = {
      delivered: 'completed',
      pending: attempts.length === 0 ? 'running' : 'waiting',
      dead: 'failed',
      canceled: 'canceled',
    };
    return {
      deliveryId: d.deliveryId,
      eventType: d.eventType,
      runId: d.runId,
      status: d.status,
      tone: tones[d.status],
      summary: summaries[d.status],
      lastProblem: last && !last.ok ? (last.error ?? last.answer) : null,
      nextAttemptAt: d.nextAttemptAt,
      attempts,
    };
  });
}
