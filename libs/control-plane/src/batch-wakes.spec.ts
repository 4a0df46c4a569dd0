import { runEventTypes, type RunEvent } from '@spindle/contracts';
import { batchWakes } from './batch-wakes';

const event = (type: string) => ({ type, runId: '01M8XQZ53HF41ZTD8MDEERWY5G', seq: 2 }) as unknown as RunEvent;

describe('batchWakes', () => {
  it('wakes nothing for a batch without a run-level event', () => {
    expect(batchWakes([event('node.started'), event('model.completed'), event('checkpoint.saved')])).toEqual({
      admission: false,
      threadDispatch: false,
      webhookDelivery: false,
      evaluation: false,
      experiments: false,
    });
  });

  it.each([
    ['run.queued', { admission: true, threadDispatch: false, webhookDelivery: false, evaluation: false, experiments: false }],
    ['run.started', { admission: true, threadDispatch: false, webhookDelivery: false, evaluation: false, experiments: false }],
    ['run.awaiting', { admission: true, threadDispatch: false, webhookDelivery: true, evaluation: false, experiments: false }],
    ['run.completed', { admission: true, threadDispatch: true, webhookDelivery: true, evaluation: true, experiments: true }],
    ['run.canceled', { admission: true, threadDispatch: true, webhookDelivery: true, evaluation: false, experiments: true }],
  ])('wakes what a %s can give work to', (type, wakes) => {
    expect(batchWakes([event('node.completed'), event(type)])).toEqual(wakes);
  });

  it('wakes the thread dispatch for every terminal type and nothing else', () => {
    const waking = runEventTypes.filter((type) => batchWakes([event(type)]).threadDispatch);
    expect(waking.sort()).toEqual(['run.canceled', 'run.completed', 'run.failed']);
  });
});
