import type { RunEvent } from '@spindle/contracts';
import { foldLiveTree } from './live-tree';
import { renderLiveTree } from './tree-render';

const RUN = '01M8MZ7GV3CM19TT0MT5MSF778';
let seq = 0;
function ev(type: string, fields: Record<string, unknown>, data: Record<string, unknown>): RunEvent {
  seq += 1;
  return {
    runId: RUN,
    seq,
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, seq * 10)).toISOString(),
    path: 'root',
    type,
    data,
    ...fields,
  } as RunEvent;
}
const usage = (totalTokens: number, costUsd: number) => ({ inputTokens: totalTokens - 2, outputTokens: 2, totalTokens, costUsd });

/** A fork with two branches, each an llm node with one model call, then a human node that waits. */
function forkRun(): RunEvent[] {
  seq = 0;
  const node = (id: string, parent: string, branchId?: string) => ({
    nodeId: id,
    spanId: `s-${id}`,
    parentSpanId: parent,
    path: `root/${id}`,
    ...(branchId ? { branchId } : {}),
  });
  return [
    ev('run.queued', { spanId: 'root' }, { workflow: { name: 'fan', version: 2 }, input: {}, state: {}, definition: {} }),
    ev('run.started', { spanId: 'root' }, { attempt: 1, worker: 'w' }),
    ev('node.started', node('split', 'root'), { nodeType: 'fork', input: {} }),
    ev('node.started', node('a', 's-split', 'b1'), { nodeType: 'llm', input: {} }),
    ev('model.started', { ...node('a', 's-a', 'b1'), spanId: 'm-a' }, { model: 'offline:echo', stream: false }),
    ev('node.started', node('b', 's-split', 'b2'), { nodeType: 'llm', input: {} }),
    ev('model.started', { ...node('b', 's-b', 'b2'), spanId: 'm-b' }, { model: 'offline:echo', stream: false }),
    ev(
      'model.completed',
      { ...node('a', 's-a', 'b1'), spanId: 'm-a' },
      { model: 'offline:echo', text: 'x', usage: usage(10, 0.001), durationMs: 5 },
    ),
    ev('node.completed', node('a', 's-split', 'b1'), { nodeType: 'llm', output: {}, durationMs: 7 }),
    ev(
      'model.completed',
      { ...node('b', 's-b', 'b2'), spanId: 'm-b' },
      { model: 'offline:echo', text: 'y', usage: usage(20, 0.002), durationMs: 6 },
    ),
    ev('node.completed', node('b', 's-split', 'b2'), { nodeType: 'llm', output: {}, durationMs: 8 }),
    ev('node.completed', node('split', 'root'), { nodeType: 'fork', output: {}, durationMs: 12 }),
    ev('node.started', node('ask', 'root'), { nodeType: 'human', input: {} }),
    ev('input.requested', node('ask', 'root'), { requestId: 'req-1', prompt: 'ok?', form: { kind: 'boolean' }, mode: 'single' }),
    ev('run.awaiting', { spanId: 'root' }, { reason: 'input', requestIds: ['req-1'] }),
  ];
}

describe('foldLiveTree', () => {
  it('nests branches under their fork and calls under their node, rolling tokens and cost up', () => {
    const tree = foldLiveTree(RUN, forkRun());
    expect(tree).toMatchObject({ status: 'awaiting_input', tokens: 30, workflow: { name: 'fan', version: 2 }, lastSeq: 15 });
    expect(tree.costUsd).toBeCloseTo(0.003);
    expect(tree.nodes.map((n) => n.label)).toEqual(['split', 'ask']);
    const [split, ask] = tree.nodes;
    expect(split).toMatchObject({ status: 'completed', tokens: 30, durationMs: 12 });
    expect(split.children.map((c) => [c.label, c.branchId, c.tokens])).toEqual([
      ['a', 'b1', 10],
      ['b', 'b2', 20],
    ]);
    // A model call inherits its node's branch: only the branch's first span is marked.
    expect(split.children[0].children).toEqual([expect.objectContaining({ kind: 'model', label: 'offline:echo', tokens: 10 })]);
    expect(split.children[0].children[0].branchId).toBeUndefined();
    expect(ask.children).toEqual([expect.objectContaining({ kind: 'request', label: 'input', status: 'running' })]);
    expect(tree.waitingOn).toEqual([{ requestId: 'req-1', kind: 'input' }]);
  });

  it('shows a span as running until its end arrives', () => {
    const events = forkRun().slice(0, 5);
    const tree = foldLiveTree(RUN, events);
    expect(tree.status).toBe('running');
    expect(tree.nodes[0].children[0]).toMatchObject({ label: 'a', status: 'running', durationMs: undefined });
  });
});

describe('renderLiveTree', () => {
  it('draws one aligned row per span, indented by depth, with the run header and what it waits for', () => {
    const lines = renderLiveTree(foldLiveTree(RUN, forkRun()));
    expect(lines[0]).toMatch(new RegExp(`^fan v2  ${RUN}\\s+awaiting_input\\s+30 tok\\s+\\$0\\.00300$`));
    expect(lines[1]).toMatch(/^ {2}✓ split \(fork\)\s+completed\s+30 tok\s+\$0\.00300\s+12 ms$/);
    expect(lines[2]).toMatch(/^ {4}✓ a \(llm\) \[b1\]\s+completed\s+10 tok/);
    expect(lines[3]).toMatch(/^ {6}✓ offline:echo \(model\)\s+completed\s+10 tok\s+\$0\.00100\s+5 ms$/);
    expect(lines[6]).toMatch(/^ {2}… ask \(human\)\s+running$/);
    expect(lines[7]).toMatch(/^ {4}… input \(request\)\s+waiting$/);
    expect(lines[8]).toBe('waiting for a person: spindle requests answer req-1 …');
    // Every row's status column starts at the same place.
    const statusColumn = lines.slice(0, 8).map((l) => l.search(/ (completed|running|waiting|awaiting_input)/));
    expect(new Set(statusColumn).size).toBe(1);
  });
});
