import { forkOriginText, runLineage } from './run-lineage';
import type { RunSummary } from './trace-queries';

const summary = (runId: string, queuedAt: string, forkedFrom?: { runId: string; seq: number }): RunSummary => ({
  runId,
  workflow: { name: 'support', version: 1 },
  status: 'completed',
  queuedAt,
  startedAt: null,
  endedAt: null,
  wallMs: 0,
  workingMs: 0,
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, costUsd: 0 },
  error: null,
  lastSeq: 5,
  forkedFrom: forkedFrom ? { ...forkedFrom, checkpointId: `cp-${forkedFrom.seq}`, forkedBy: { kind: 'key', id: 'k1', name: 'ci' } } : null,
  tenant: 'default',
  startedBy: null,
  canceledBy: null,
});

describe('runLineage', () => {
  // root ─┬─ a (at 3) ── a1 (at 4)
  //       └─ b (at 2)
  const root = summary('root', '2026-01-01T00:00:00.000Z');
  const a = summary('a', '2026-01-01T00:01:00.000Z', { runId: 'root', seq: 3 });
  const b = summary('b', '2026-01-01T00:02:00.000Z', { runId: 'root', seq: 2 });
  const a1 = summary('a1', '2026-01-01T00:03:00.000Z', { runId: 'a', seq: 4 });

  it('orders the tree depth first from the oldest ancestor, older forks first, each with its edge', () => {
    const lineage = runLineage('a1', [b, a1, root, a], false);
    expect(lineage).toMatchObject({ runId: 'a1', rootRunId: 'root', truncated: false });
    expect(lineage.runs.map((r) => [r.runId, r.depth, r.forkedFrom?.runId ?? null, r.forkedFrom?.seq ?? null])).toEqual([
      ['root', 0, null, null],
      ['a', 1, 'root', 3],
      ['a1', 2, 'a', 4],
      ['b', 1, 'root', 2],
    ]);
    expect(lineage.runs[2]?.forkedFrom).toEqual({
      runId: 'a',
      seq: 4,
      checkpointId: 'cp-4',
      forkedBy: { kind: 'key', id: 'k1', name: 'ci' },
    });
  });

  it('is the same tree whichever of its runs is asked about', () => {
    const fromRoot = runLineage('root', [root, a, b, a1], false).runs;
    expect(runLineage('b', [a1, a, b, root], false).runs).toEqual(fromRoot);
  });

  it('roots the tree at a fork whose parent was erased, keeping the edge to it', () => {
    const lineage = runLineage('a1', [a, a1], true);
    expect(lineage).toMatchObject({ rootRunId: 'a', truncated: true });
    expect(lineage.runs.map((r) => [r.runId, r.depth])).toEqual([
      ['a', 0],
      ['a1', 1],
    ]);
    expect(lineage.runs[0]?.forkedFrom?.runId).toBe('root');
  });

  it('answers a run that is no fork and has none as a tree of one', () => {
    expect(runLineage('root', [root], false).runs.map((r) => r.runId)).toEqual(['root']);
  });

  it('leaves out runs not connected to the root, and never loops on a cycle a corrupt row could make', () => {
    const stray = summary('stray', '2026-01-01T00:05:00.000Z', { runId: 'elsewhere', seq: 1 });
    const x = summary('x', '2026-01-01T00:00:00.000Z', { runId: 'y', seq: 1 });
    const y = summary('y', '2026-01-01T00:00:01.000Z', { runId: 'x', seq: 1 });
    expect(runLineage('a', [root, a, stray], false).runs.map((r) => r.runId)).toEqual(['root', 'a']);
    expect(runLineage('x', [x, y], false).runs.map((r) => r.runId)).toEqual(['x', 'y']);
  });
});

describe('a fork in words', () => {
  it('says where and by whom a fork was made', () => {
    expect(forkOriginText({ runId: 'p', seq: 7, checkpointId: 'cp-2', forkedBy: { kind: 'user', id: 'u1', name: 'alice' } })).toEqual({
      at: 'cp-2 (event 7)',
      by: 'alice',
    });
    expect(forkOriginText({ runId: 'p', seq: 7 })).toEqual({ at: 'event 7', by: '' });
  });
});
