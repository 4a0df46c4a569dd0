import { webhookSubscribes, type WebhookRun, type WebhookSubscription } from './webhook-events';

const run: WebhookRun = { tenant: 'acme', workflow: 'triage', threadId: null, scheduleId: null, named: [] };
const hook: WebhookSubscription = {
  id: 'wh_1',
  tenant: 'acme',
  events: ['run.completed', 'run.failed'],
  workflow: null,
  threadId: null,
  scheduleId: null,
  namedOnly: false,
};

describe('webhookSubscribes', () => {
  it('tells a subscription of the event types it asked for, of its own tenant only', () => {
    expect(webhookSubscribes(hook, run, 'run.completed')).toBe(true);
    expect(webhookSubscribes(hook, run, 'run.awaiting')).toBe(false);
    expect(webhookSubscribes({ ...hook, tenant: 'other' }, run, 'run.completed')).toBe(false);
    expect(webhookSubscribes({ ...hook, tenant: 'other' }, { ...run, named: ['wh_1'] }, 'run.completed')).toBe(false);
  });

  it('matches every filter a subscription set; a filter on a thread or schedule leaves out runs without one', () => {
    expect(webhookSubscribes({ ...hook, workflow: 'triage' }, run, 'run.completed')).toBe(true);
    expect(webhookSubscribes({ ...hook, workflow: 'billing' }, run, 'run.completed')).toBe(false);
    expect(webhookSubscribes({ ...hook, threadId: 'th_1' }, run, 'run.completed')).toBe(false);
    expect(webhookSubscribes({ ...hook, threadId: 'th_1' }, { ...run, threadId: 'th_1' }, 'run.completed')).toBe(true);
    expect(webhookSubscribes({ ...hook, scheduleId: 'sc_1' }, run, 'run.completed')).toBe(false);
    expect(webhookSubscribes({ ...hook, scheduleId: 'sc_1' }, { ...run, scheduleId: 'sc_1' }, 'run.completed')).toBe(true);
  });

  it('tells a named-only subscription of the runs that name it, whatever its filters', () => {
    const namedOnly = { ...hook, namedOnly: true, workflow: 'billing' };
    expect(webhookSubscribes(namedOnly, run, 'run.completed')).toBe(false);
    expect(webhookSubscribes(namedOnly, { ...run, named: ['wh_1'] }, 'run.completed')).toBe(true);
    expect(webhookSubscribes(namedOnly, { ...run, named: ['wh_1'] }, 'run.awaiting')).toBe(false);
  });
});
