import { checkRunEvent, EVERY_RUN_EVENT, eitherSelection, readsOfHandlers, readsOnly } from './run-event-check';
import { runEventTypes, type RunEventHandlers } from './run-events';

const envelope = { runId: 'r1', seq: 3, at: '2026-12-07T10:00:00.000Z', spanId: 's1', path: 'root', nodeId: 'n1' };
const unreadable = { ...envelope, type: 'node.started', data: { not: 'a node.started' } };

describe('checkRunEvent with a selection', () => {
  it('checks the data of every type without one', () => {
    expect(checkRunEvent(unreadable)).toMatchObject({ ok: false });
  });

  it("passes an unread type's data through unread, the envelope checked", () => {
    const checked = checkRunEvent(unreadable, readsOnly(['run.queued']));
    expect(checked).toEqual({ ok: true, event: unreadable });
    expect(checkRunEvent({ ...unreadable, seq: 0 }, readsOnly(['run.queued']))).toMatchObject({ ok: false, reason: /seq/ });
    expect(checkRunEvent({ ...unreadable, at: 'yesterday' }, readsOnly(['run.queued']))).toMatchObject({ ok: false, reason: /at/ });
  });

  it('checks the data of a read type, and refuses a type no schema knows', () => {
    expect(checkRunEvent(unreadable, readsOnly(['node.started']))).toMatchObject({ ok: false });
    for (const type of ['node.exploded', '__proto__', 'constructor'])
      expect(checkRunEvent({ ...envelope, type, data: {} }, readsOnly([]))).toMatchObject({ ok: false });
  });
});

describe('selections', () => {
  it('are exhaustive over the event types', () => {
    expect(Object.keys(readsOnly(['custom'])).sort()).toEqual([...runEventTypes].sort());
    expect(Object.values(EVERY_RUN_EVENT).every(Boolean)).toBe(true);
  });

  it('join, and follow a handler map', () => {
    const both = eitherSelection(readsOnly(['run.queued']), readsOnly(['custom']));
    expect(runEventTypes.filter((t) => both[t])).toEqual(['run.queued', 'custom']);
    const ignore = () => 0;
    const handlers = Object.fromEntries(
      runEventTypes.map((t) => [t, t === 'run.failed' ? () => 1 : ignore]),
    ) as unknown as RunEventHandlers<number>;
    expect(runEventTypes.filter((t) => readsOfHandlers(handlers, ignore)[t])).toEqual(['run.failed']);
  });
});
