import type { RunEvent } from '@spindle/contracts';
import { describe, expect, it } from 'vitest';
import { compareRuns, nodeDiffers } from './run-comparison';

let seq = 0;
const ev = (runId: string, type: string, data: Record<string, unknown>, nodeId?: string) =>
  ({
    runId,
    seq: ++seq,
    at: new Date(seq).toISOString(),
    spanId: nodeId ?? 'root',
    path: 'root',
    nodeId,
    type,
    data,
  }) as unknown as RunEvent;

function run(runId: string, count: number, extra = false): RunEvent[] {
  seq = 0;
  return [
    ev(runId, 'run.queued', { workflow: { name: 'w', version: 1 }, input: { q: 'x' }, state: {}, definition: {} }),
    ev(runId, 'run.started', { attempt: 1, worker: 'w' }),
    ev(runId, 'node.started', { nodeType: 'set', input: { a: 1, b: 2 } }, 'plan'),
    ev(runId, 'node.completed', { nodeType: 'set', output: { b: 2, a: 1 }, durationMs: 3 }, 'plan'),
    ev(runId, 'node.started', { nodeType: 'set', input: { count } }, 'count'),
    ev(runId, 'node.completed', { nodeType: 'set', output: { doubled: count * 2 }, durationMs: 4 }, 'count'),
    ...(extra
      ? [
          ev(runId, 'node.started', { nodeType: 'set', input: {} }, 'extra'),
          ev(runId, 'node.failed', { nodeType: 'set', error: { code: 'function_failed', message: 'no' }, durationMs: 1 }, 'extra'),
        ]
      : []),
    ev(runId, 'run.completed', {
      output: { doubled: count * 2 },
      durationMs: 20,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    }),
  ];
}

describe('two runs compared node by node', () => {
  it('finds the nodes that saw or wrote other values, ignoring key order', () => {
    const comparison = compareRuns(run('a', 1), run('b', 5));
    expect(comparison.nodes.map((n) => [n.nodeId, nodeDiffers(n)])).toEqual([
      ['plan', false],
      ['count', true],
    ]);
    expect(comparison.nodes[1]?.differs).toEqual({ presence: false, status: false, executions: false, input: true, output: true });
    expect(comparison.differs).toEqual({ input: false, output: true, status: false });
    expect(comparison.a).toMatchObject({ runId: 'a', status: 'completed', output: { doubled: 2 } });
  });

  it('marks a node only one run reached, and a run that ended otherwise', () => {
    const withExtra = run('b', 1, true);
    const comparison = compareRuns(run('a', 1), withExtra);
    const extra = comparison.nodes.find((n) => n.nodeId === 'extra');
    expect(extra).toMatchObject({ a: undefined, b: { status: 'failed', error: { code: 'function_failed' } }, differs: { presence: true } });
    expect(compareRuns(run('a', 1), run('b', 1)).nodes.some(nodeDiffers)).toBe(false);
  });
});

describe('a fork compared with the run it was forked from', () => {
  /** The fork of `parent` at `atSeq`: it starts at `count` (its frontier then), so `plan` came with the checkpoint. */
  function fork(runId: string, parent: string, atSeq: number): RunEvent[] {
    seq = 0;
    return [
      ev(runId, 'run.queued', {
        workflow: { name: 'w', version: 1 },
        input: { q: 'x' },
        state: {},
        definition: {},
        forkedFrom: { runId: parent, seq: atSeq, checkpointId: 'cp-1' },
      }),
      ev(runId, 'run.started', { attempt: 1, worker: 'w' }),
      ev(runId, 'node.started', { nodeType: 'set', input: { count: 3 } }, 'count'),
      ev(runId, 'node.completed', { nodeType: 'set', output: { doubled: 6 }, durationMs: 4 }, 'count'),
      ev(runId, 'run.completed', { output: { doubled: 6 }, durationMs: 9, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } }),
    ];
  }

  it('marks a node completed before the fork checkpoint as inherited by the fork, not as reached by one run only', () => {
    // In `run`, plan completes at seq 4: a checkpoint at seq 4 or later holds its result.
    const comparison = compareRuns(run('parent', 1), fork('child', 'parent', 4));
    const plan = comparison.nodes.find((n) => n.nodeId === 'plan');
    expect(plan).toMatchObject({ inherited: 'b', b: undefined, differs: { presence: false } });
    expect(plan && nodeDiffers(plan)).toBe(false);
    expect(comparison.nodes.find((n) => n.nodeId === 'count')?.inherited).toBeUndefined();
    // Either way round.
    expect(compareRuns(fork('child', 'parent', 4), run('parent', 1)).nodes.find((n) => n.nodeId === 'plan')?.inherited).toBe('a');
  });

  it('does not call a node inherited when the fork is from before it completed, or of another run', () => {
    const early = compareRuns(run('parent', 1), fork('child', 'parent', 3)).nodes.find((n) => n.nodeId === 'plan');
    expect(early).toMatchObject({ differs: { presence: true } });
    expect(early?.inherited).toBeUndefined();
    const stranger = compareRuns(run('other', 1), fork('child', 'parent', 9)).nodes.find((n) => n.nodeId === 'plan');
    expect(stranger?.inherited).toBeUndefined();
  });
});
