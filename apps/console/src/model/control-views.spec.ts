import { describe, expect, it } from 'vitest';
import type { WebhookDelivery } from '@spindle/contracts';
import { deliveryRows, firingRows, scheduleControls, threadCreator, threadRunBadge } from './control-views';

const attempt = (n: number, statusCode: number | null, error: string | null = null) => ({
  attempt: n,
  at: `2026-03-06T08:00:0${n}.000Z`,
  statusCode,
  error,
  durationMs: 4,
  response: null,
});
const delivery = (over: Partial<WebhookDelivery>): WebhookDelivery => ({
  deliveryId: 'whd_1',
  eventId: 'evt',
  eventType: 'run.completed',
  runId: 'run_1',
  status: 'pending',
  attempts: [],
  nextAttemptAt: null,
  createdAt: '2026-03-06T08:00:00.000Z',
  deliveredAt: null,
  ...over,
});

describe('the threads, schedules and webhooks pages', () => {
  it('names who made a thread as everywhere else in the console, never by its key id alone', () => {
    expect(threadCreator({ createdBy: { kind: 'key', id: '7q0s0inoig3ap4yb', name: 'bootstrap admin' } })).toBe('bootstrap admin');
    expect(threadCreator({ createdBy: { kind: 'user', id: 'u1', name: '', onBehalfOf: 'ada' } })).toBe('u1 on behalf of ada');
  });

  it("shows a thread's run statuses as pills, a rolled-back run as left out", () => {
    expect(threadRunBadge('rolled_back')).toEqual({ label: 'rolled back', tone: 'canceled' });
    expect(threadRunBadge('pending').tone).toBe('waiting');
    expect(threadRunBadge('awaiting_input')).toEqual({ label: 'awaiting input', tone: 'waiting' });
  });

  it('offers pause or resume as the schedule stands, and trigger either way', () => {
    expect(scheduleControls({ paused: false })).toEqual({ pause: true, resume: false, trigger: true });
    expect(scheduleControls({ paused: true })).toEqual({ pause: false, resume: true, trigger: true });
  });

  it('marks each firing by its outcome, with its detail', () => {
    const rows = firingRows([
      { fireAt: 't2', outcome: 'skipped', runId: null, detail: 'the last run had not ended' },
      { fireAt: 't1', outcome: 'started', runId: 'run_1', detail: null },
    ]);
    expect(rows.map((r) => [r.tone, r.detail])).toEqual([
      ['canceled', 'the last run had not ended'],
      ['completed', ''],
    ]);
  });

  it("says how each delivery went, with every attempt's answer and the error that keeps it from being delivered", () => {
    const [retrying, delivered, dead] = deliveryRows([
      delivery({ attempts: [attempt(1, null, 'connect ECONNREFUSED'), attempt(2, 500)], nextAttemptAt: 'later' }),
      delivery({ status: 'delivered', attempts: [attempt(1, 503), attempt(2, 200)] }),
      delivery({ status: 'dead', attempts: [attempt(1, null, 'timed out')] }),
    ]);
    expect(retrying).toMatchObject({ tone: 'waiting', summary: 'retrying (2 attempts)', lastProblem: 'HTTP 500', nextAttemptAt: 'later' });
    expect(retrying.attempts.map((a) => [a.answer, a.ok, a.error])).toEqual([
      ['no answer', false, 'connect ECONNREFUSED'],
      ['HTTP 500', false, null],
    ]);
    expect(delivered).toMatchObject({ tone: 'completed', summary: 'delivered on attempt 2', lastProblem: null });
    expect(dead).toMatchObject({ tone: 'failed', summary: 'gave up after 1 attempt', lastProblem: 'timed out' });
    expect(deliveryRows([delivery({})])[0]).toMatchObject({ tone: 'running', summary: 'not tried yet', lastProblem: null });
  });
});
