import type { RunEventOf, RunEventType, WebhookEvent } from '@spindle/contracts';

/** What a webhook is told of an event, before the run's workflow and thread are added. */
export type WebhookEventBody = Pick<WebhookEvent, 'type'> & { data: Omit<WebhookEvent['data'], 'workflow' | 'threadId' | 'scheduleId'> };

/** The webhook event each run event is (a run's end, a run waiting on a person), or `null`. */
export const webhookEventAfter: { readonly [T in RunEventType]: ((e: RunEventOf<T>) => WebhookEventBody) | null } = {
  'run.queued': null,
  'run.started': null,
  'run.awaiting': (e) => ({
    type: 'run.awaiting',
    data: { runId: e.runId, awaiting: { reason: e.data.reason, requestIds: e.data.requestIds ?? [] } },
  }),
  'run.resumed': null,
  'run.yielded': null,
  'run.completed': (e) => ({ type: 'run.completed', data: { runId: e.runId, output: e.data.output } }),
  'run.failed': (e) => ({
    type: 'run.failed',
    data: { runId: e.runId, error: { code: e.data.error.code, message: e.data.error.message } },
  }),
  'run.canceled': (e) => ({
    type: 'run.canceled',
    data: { runId: e.runId, error: { code: 'canceled', message: e.data.reason ?? 'canceled' } },
  }),
  'node.started': null,
  'node.completed': null,
  'node.failed': null,
  'model.started': null,
  'model.completed': null,
  'model.failed': null,
  'tool.called': null,
  'tool.returned': null,
  'loop.iteration': null,
  'branch.started': null,
  'branch.completed': null,
  'input.requested': null,
  'input.answered': null,
  'approval.requested': null,
  'approval.resolved': null,
  'checkpoint.saved': null,
  'context.truncated': null,
  'memory.compacted': null,
  'retrieval.completed': null,
  'usage.reported': null,
  'attempt.failed': null,
  custom: null,
};

/** A subscription as the projection matches it against a run's event. */
export interface WebhookSubscription {
  id: string;
  tenant: string;
  /** The event types it asked for. */
  events: readonly string[];
  workflow: string | null;
  threadId: string | null;
  scheduleId: string | null;
  /** Told only of the runs that name it. */
  namedOnly: boolean;
}

/** The run a webhook event is about, as its `run.queued` described it. */
export interface WebhookRun {
  tenant: string;
  workflow: string;
  threadId: string | null;
  scheduleId: string | null;
  /** The subscriptions the run named. */
  named: readonly string[];
}

/**
 * Whether a subscription is told of this event of this run: its tenant's, asking for the type,
 * and either named by the run or (unless it waits to be named) matching every filter it set.
 */
export function webhookSubscribes(hook: WebhookSubscription, run: WebhookRun, eventType: string): boolean {
  if (hook.tenant !== run.tenant || !hook.events.includes(eventType)) return false;
  if (run.named.includes(hook.id)) return true;
  return (
    !hook.namedOnly &&
    (hook.workflow === null || hook.workflow === run.workflow) &&
    (hook.threadId === null || hook.threadId === run.threadId) &&
    (hook.scheduleId === null || hook.scheduleId === run.scheduleId)
  );
}
