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

/** A clock reading `ms` after the last event. */
const laterThan = (events: readonly RunEvent[], ms: number) => Date.parse(events[events.length - 1].at) + ms;
const timeBetween = (events: readonly RunEvent[], from: string, to: string, nodeId: string) => {
  const at = (type: string) => Date.parse(events.find((e) => e.type === type && e.nodeId === nodeId)!.at);
  return at(to) - at(from);
};

describe('foldLiveTree', () => {
  it('nests branches under their fork and calls under their node, rolling tokens and cost up', () => {
    const events = forkRun();
    const tree = foldLiveTree(RUN, events, laterThan(events, 0));
    expect(tree).toMatchObject({ status: 'awaiting_input', tokens: 30, workflow: { name: 'fan', version: 2 }, lastSeq: 15 });
    expect(tree.costUsd).toBeCloseTo(0.003);
    expect(tree.nodes.map((n) => n.label)).toEqual(['split', 'ask']);
    const [split, ask] = tree.nodes;
    const splitTime = timeBetween(events, 'node.started', 'node.completed', 'split');
    expect(split).toMatchObject({ status: 'completed', tokens: 30, wallMs: splitTime, workingMs: splitTime });
    expect(split.children.map((c) => [c.label, c.branchId, c.tokens])).toEqual([
      ['a', 'b1', 10],
      ['b', 'b2', 20],
    ]);
    // A model call inherits its node's branch: only the branch's first span is marked.
    expect(split.children[0].children).toEqual([expect.objectContaining({ kind: 'model', label: 'offline:echo', tokens: 10 })]);
    expect(split.children[0].children[0].branchId).toBeUndefined();
    expect(ask.children).toEqual([expect.objectContaining({ kind: 'request', label: 'input', status: 'running' })]);
    expect(tree.waitingOn).toEqual([{ requestId: 'req-1', kind: 'boolean' }]);
  });

  it('shows a span as running until its end arrives', () => {
    const events = forkRun().slice(0, 5);
    const now = laterThan(events, 500);
    const tree = foldLiveTree(RUN, events, now);
    expect(tree.status).toBe('running');
    const started = events.find((e) => e.type === 'node.started' && e.nodeId === 'a')!;
    expect(tree.nodes[0].children[0]).toMatchObject({ label: 'a', status: 'running', wallMs: now - Date.parse(started.at) });
  });

  it('gives the run wall time and working time without the wait for a person, as runDurations does', () => {
    const events = forkRun();
    const now = laterThan(events, 20_000);
    const tree = foldLiveTree(RUN, events, now);
    const awaiting = Date.parse(events.find((e) => e.type === 'run.awaiting')!.at);
    expect(tree.wallMs).toBe(now - Date.parse(events[0].at));
    expect(tree.workingMs).toBe(awaiting - Date.parse(events[0].at));
    // The waiting node's working time leaves its open request out; the request's whole span is the wait.
    const asked = Date.parse(events.find((e) => e.type === 'input.requested')!.at);
    const [, ask] = tree.nodes;
    expect(ask.wallMs! - ask.workingMs!).toBe(now - asked);
    expect(ask.children[0].wallMs).toBe(now - asked);
  });
});

describe('renderLiveTree', () => {
  it('draws one aligned row per span, indented by depth, with the run header and what it waits for', () => {
    const events = forkRun();
    const lines = renderLiveTree(foldLiveTree(RUN, events, laterThan(events, 20_000)));
    expect(lines[0]).toMatch(new RegExp(`^fan v2  ${RUN}\\s+awaiting_input\\s+30 tok\\s+\\$0\\.00300\\s+wall 20 s · working \\d+ ms$`));
    expect(lines[1]).toMatch(/^ {2}✓ split \(fork\)\s+completed\s+30 tok\s+\$0\.00300\s+wall \d+ ms$/);
    expect(lines[2]).toMatch(/^ {4}✓ a \(llm\) \[b1\]\s+completed\s+10 tok/);
    expect(lines[3]).toMatch(/^ {6}✓ offline:echo \(model\)\s+completed\s+10 tok\s+\$0\.00100\s+wall \d+ ms$/);
    expect(lines[6]).toMatch(/^ {2}… ask \(human\)\s+running\s+wall 20 s · working \d+ ms$/);
    expect(lines[7]).toMatch(/^ {4}… input \(request\)\s+waiting\s+waited 20 s$/);
    expect(lines[8]).toBe('waiting for a person: spindle requests answer req-1 --approve|--reject [--comment <text>]');
    // Every row's status column starts at the same place.
    const statusColumn = lines.slice(0, 8).map((l) => l.search(/ (completed|running|waiting|awaiting_input)/));
    expect(new Set(statusColumn).size).toBe(1);
  });
});
