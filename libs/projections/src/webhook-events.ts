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
  custom: null,
};
