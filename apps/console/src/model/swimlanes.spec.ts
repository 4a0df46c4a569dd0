import type { RunEvent } from '@spindle/contracts';
import { describe, expect, it } from 'vitest';
import { deriveRunView } from './run-view';
import { swimlanes, timeTicks } from './swimlanes';

let seq = 0;
const t = (ms: number) => Date.UTC(2026, 10, 30) + ms;
const at = (ms: number) => new Date(t(ms)).toISOString();
const ev = (ms: number, type: string, data: Record<string, unknown>, envelope: Record<string, unknown> = {}) =>
  ({ runId: 'r1', seq: ++seq, at: at(ms), spanId: 'root', path: 'root', type, data, ...envelope }) as unknown as RunEvent;
const agent = (id: string, spanId: string, iteration: number, extra: Record<string, unknown> = {}) => ({
  nodeId: id,
  spanId,
  parentSpanId: 's-loop',
  path: `root/handoff-loop[${iteration}]/${id}`,
  iteration,
  ...extra,
});

/** A handoff pattern's turns: triage hands off to billing (twice over the run), billing answers. */
function handoffRun(): RunEvent[] {
  seq = 0;
  return [
    ev(0, 'run.queued', { workflow: { name: 'desk', version: 1 }, input: 'refund', state: {}, definition: {} }),
    ev(1, 'run.started', { attempt: 1, worker: 'w1' }),
    ev(
      2,
      'node.started',
      { nodeType: 'loop', input: {} },
      { nodeId: 'handoff-loop', spanId: 's-loop', parentSpanId: 'root', path: 'root/handoff-loop' },
    ),
    ev(10, 'node.started', { nodeType: 'agent', input: {} }, agent('triage', 's-t1', 1)),
    ev(
      30,
      'node.completed',
      { nodeType: 'agent', output: { next_agent: 'billing', handoff_note: 'wants a refund' }, durationMs: 20 },
      agent('triage', 's-t1', 1),
    ),
    ev(40, 'node.started', { nodeType: 'agent', input: {} }, agent('billing', 's-b1', 2)),
    ev(
      60,
      'node.completed',
      { nodeType: 'agent', output: { next_agent: 'triage', handoff_note: '' }, durationMs: 20 },
      agent('billing', 's-b1', 2),
    ),
    ev(70, 'node.started', { nodeType: 'agent', input: {} }, agent('triage', 's-t2', 3)),
    ev(80, 'node.completed', { nodeType: 'agent', output: { reply: 'done' }, durationMs: 10 }, agent('triage', 's-t2', 3)),
  ];
}

describe('swimlanes', () => {
  it('draws one lane per agent in the order they first ran, a bar per execution, and an edge per handoff', () => {
    const { lanes, handoffs } = swimlanes(deriveRunView(handoffRun()));
    expect(lanes.map((l) => [l.id, l.bars.length])).toEqual([
      ['top', 1],
      ['agent:triage', 2],
      ['agent:billing', 1],
    ]);
    expect(lanes[0]?.bars[0]).toMatchObject({ label: 'handoff-loop', status: 'running' });
    expect(handoffs).toEqual([
      {
        fromKey: 's-t1|root/handoff-loop[1]/triage',
        toKey: 's-b1|root/handoff-loop[2]/billing',
        fromLane: 'agent:triage',
        toLane: 'agent:billing',
        fromMs: t(30),
        toMs: t(40),
        note: 'wants a refund',
      },
      // An empty note is left out rather than shown as "".
      {
        fromKey: 's-b1|root/handoff-loop[2]/billing',
        toKey: 's-t2|root/handoff-loop[3]/triage',
        fromLane: 'agent:billing',
        toLane: 'agent:triage',
        fromMs: t(60),
        toMs: t(70),
      },
    ]);
  });

  it('shows a handoff in a replayed slice only once the agent handed to has started', () => {
    const events = handoffRun();
    expect(swimlanes(deriveRunView(events, 5)).handoffs).toEqual([]);
    expect(swimlanes(deriveRunView(events, 6)).handoffs.map((h) => h.toLane)).toEqual(['agent:billing']);
  });

  it('follows a group chat manager naming the next speaker, and gives fork branches their own lanes', () => {
    seq = 0;
    const fork = { nodeId: 'split', spanId: 's-fork', parentSpanId: 'root' };
    const events = [
      ev(0, 'run.queued', { workflow: { name: 'chat', version: 1 }, input: 'q', state: {}, definition: {} }),
      ev(
        1,
        'node.started',
        { nodeType: 'agent', input: {} },
        { nodeId: 'manager', spanId: 's-m', parentSpanId: 'root', path: 'root/manager' },
      ),
      ev(
        5,
        'node.completed',
        { nodeType: 'agent', output: { selection: { next: 'writer', reason: 'draft first' } }, durationMs: 4 },
        { nodeId: 'manager', spanId: 's-m', parentSpanId: 'root', path: 'root/manager' },
      ),
      ev(6, 'node.started', { nodeType: 'fork', input: {} }, { ...fork, path: 'root/split' }),
      ev(7, 'branch.started', { forkId: 'split', branchId: 'a' }, { ...fork, path: 'root/split[a]', branchId: 'a' }),
      ev(
        8,
        'node.started',
        { nodeType: 'agent', input: {} },
        { nodeId: 'writer', spanId: 's-w', parentSpanId: 's-fork', path: 'root/split[a]/writer', branchId: 'a' },
      ),
      ev(
        9,
        'node.started',
        { nodeType: 'set', input: {} },
        { nodeId: 'note', spanId: 's-n', parentSpanId: 's-fork', path: 'root/split[a]/note', branchId: 'a' },
      ),
    ];
    const { lanes, handoffs } = swimlanes(deriveRunView(events));
    // A set node in a branch is not a lane of its own; the branch and the agents are, after the run's top-level fork.
    expect(lanes.map((l) => l.id)).toEqual(['top', 'agent:manager', 'branch:split[a]', 'agent:writer']);
    expect(lanes[0]?.bars.map((b) => b.label)).toEqual(['split']);
    expect(handoffs).toMatchObject([{ fromLane: 'agent:manager', toLane: 'agent:writer', fromMs: t(5), toMs: t(8) }]);
    // The writer is still running: its bar reaches the last event of the slice.
    expect(lanes[3].bars[0]).toMatchObject({ status: 'running', startMs: t(8), endMs: t(9) });
  });
});

describe('the time axis of the lanes', () => {
  it('ticks at round times, about one per 90 px', () => {
    expect(timeTicks(1000, 900)).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
    expect(timeTicks(1000, 450)).toEqual([0, 200, 400, 600, 800, 1000]);
    expect(timeTicks(207, 400)).toEqual([0, 100, 200]);
    expect(timeTicks(7_300, 300)).toEqual([0, 5000]);
  });

  it('has only its origin for an empty run or no room', () => {
    expect(timeTicks(0, 500)).toEqual([0]);
    expect(timeTicks(500, 0)).toEqual([0]);
  });
});
