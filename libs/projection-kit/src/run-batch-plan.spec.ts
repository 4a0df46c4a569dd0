import type { RunEvent } from '@spindle/contracts';
import { planRunBatch } from './run-batch-plan';

const event = (seq: number, type = 'custom', data: Record<string, unknown> = { n: seq }) =>
  ({ runId: 'r', seq, type, at: '2025-03-01T10:00:00.000Z', spanId: 'root', path: 'root', data }) as RunEvent;
const delivered = (...events: RunEvent[]) => events.map((e, i) => ({ event: e, item: `m${i}` }));
const completed = (seq: number) =>
  event(seq, 'run.completed', { output: {}, durationMs: 1, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } });

describe('planRunBatch', () => {
  it('applies what continues the progress, in seq order, and settles every message', () => {
    const plan = planRunBatch({ lastSeq: 2, ended: false }, delivered(event(4), event(3), event(5)));
    expect(plan.apply.map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(plan.settled.sort()).toEqual(['m0', 'm1', 'm2']);
    expect(plan).toMatchObject({ rejected: [], gap: false });
  });

  it('settles a redelivery of what is applied, and the same event twice in one batch, without applying them again', () => {
    const plan = planRunBatch({ lastSeq: 2, ended: false }, delivered(event(1), event(2), event(3), event(3)));
    expect(plan.apply.map((e) => e.seq)).toEqual([3]);
    expect(plan.settled).toHaveLength(4);
  });

  it('rejects a different event under a seq already taken in the batch, and anything after the end', () => {
    const plan = planRunBatch(
      { lastSeq: 1, ended: false },
      delivered(event(2), event(2, 'custom', { forged: true }), completed(3), event(4)),
    );
    expect(plan.apply.map((e) => e.seq)).toEqual([2, 3]);
    expect(plan.rejected.map((r) => [r.item, r.kind])).toEqual([
      ['m1', 'duplicate_seq'],
      ['m3', 'after_terminal'],
    ]);
    expect(planRunBatch({ lastSeq: 3, ended: true }, delivered(event(4))).rejected).toEqual([
      expect.objectContaining({ kind: 'after_terminal' }),
    ]);
  });

  it('asks for the log at a gap, then applies exactly the log and rejects what is not in it', () => {
    expect(planRunBatch({ lastSeq: 1, ended: false }, delivered(event(3)))).toEqual({ apply: [], settled: [], rejected: [], gap: true });
    const fromLog = [event(2), event(3)];
    const plan = planRunBatch({ lastSeq: 1, ended: false }, delivered(event(3), event(9), event(2, 'custom', { other: 1 })), fromLog);
    expect(plan.apply).toEqual(fromLog);
    expect(plan.settled).toEqual(['m0']);
    expect(plan.rejected.map((r) => [r.item, r.kind])).toEqual([
      ['m2', 'duplicate_seq'],
      ['m1', 'not_in_log'],
    ]);
  });
});
