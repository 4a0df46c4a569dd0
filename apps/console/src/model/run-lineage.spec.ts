import type { LineageRun } from '@spindle/contracts';
import { describe, expect, it } from 'vitest';
import { forkTreeRows } from './run-lineage';

const node = (runId: string, depth: number): LineageRun => ({
  runId,
  depth,
  forkedFrom: depth === 0 ? null : { runId: 'p', seq: 3, checkpointId: 'cp-1' },
  workflow: { name: 'w', version: 1 },
  status: 'completed',
  queuedAt: '2026-01-01T00:00:00.000Z',
  startedBy: null,
});

describe('a fork tree drawn', () => {
  it('guides each fork from its parent, keeping a rule for ancestors with forks still to come', () => {
    const rows = forkTreeRows([node('root', 0), node('a', 1), node('a1', 2), node('a2', 2), node('b', 1), node('b1', 2)]);
    expect(rows.map((r) => `${r.guide}${r.run.runId}`)).toEqual(['root', '├─a', '│ ├─a1', '│ └─a2', '└─b', '  └─b1']);
  });
});
