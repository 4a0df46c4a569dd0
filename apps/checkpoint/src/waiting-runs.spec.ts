import type { RunEvent } from '@spindle/contracts';
import { waitingChangesOf } from './waiting-runs';

const at = (n: number) => `2026-12-03T10:00:0${n}.000Z`;
const event = (runId: string, seq: number, type: RunEvent['type']) =>
  ({ runId, seq, type, at: at(seq), spanId: 'root', path: 'root' }) as RunEvent;

describe('waitingChangesOf', () => {
  it('leaves a run waiting from its last run.awaiting, and not waiting after a resume, an end or a hand-back to the queue', () => {
    expect(
      waitingChangesOf([
        event('b', 1, 'run.queued'),
        event('b', 2, 'run.started'),
        event('b', 3, 'run.awaiting'),
        event('a', 1, 'run.awaiting'),
        event('a', 2, 'run.resumed'),
        event('c', 4, 'run.awaiting'),
        event('c', 5, 'run.canceled'),
      ]),
    ).toEqual([
      { runId: 'a', waiting: false },
      { runId: 'b', waiting: true, since: at(3) },
      { runId: 'c', waiting: false },
    ]);
  });

  it('says nothing of a run whose events in the batch do not move it (node events, a runner yielding it)', () => {
    expect(waitingChangesOf([event('a', 7, 'node.started'), event('a', 8, 'run.yielded'), event('a', 9, 'custom')])).toEqual([]);
  });
});
