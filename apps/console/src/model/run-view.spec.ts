import type { RunEvent } from '@spindle/contracts';
import { projectEvents, spanKey } from '@spindle/projections';
import { describe, expect, it } from 'vitest';
import { nextStep, parseCursor, previousStep } from './replay-cursor';
import { deriveRunView, spanTimes } from './run-view';

let seq = 0;
const at = (ms: number) => new Date(Date.UTC(2026, 10, 30, 0, 0, 0, ms)).toISOString();
const ev = (ms: number, type: string, data: Record<string, unknown>, envelope: Record<string, unknown> = {}) =>
  ({ runId: 'r1', seq: ++seq, at: at(ms), spanId: 'root', path: 'root', type, data, ...envelope }) as unknown as RunEvent;
const node = (id: string, spanId: string, path = `root/${id}`, parentSpanId = 'root', extra: Record<string, unknown> = {}) => ({
  nodeId: id,
  spanId,
  parentSpanId,
  path,
  ...extra,
});

/** A run: plan → fork (a: search with a model call and a tool, b: noop) → plan again (second execution). */
function recordedRun(): RunEvent[] {
  seq = 0;
  return [
    ev(0, 'run.queued', { workflow: { name: 'w', version: 2 }, input: 'q', state: {}, definition: {} }),
    ev(5, 'run.started', { attempt: 1, worker: 'w1' }),
    ev(10, 'node.started', { nodeType: 'set', input: {} }, node('plan', 's-plan1')),
    ev(20, 'node.completed', { nodeType: 'set', output: { plan: 1 }, durationMs: 10 }, node('plan', 's-plan1')),
    ev(30, 'node.started', { nodeType: 'fork', input: {} }, node('split', 's-fork')),
    ev(31, 'branch.started', { forkId: 'split', branchId: 'a' }, node('split', 's-fork', 'root/split[a]', 'root', { branchId: 'a' })),
    ev(32, 'branch.started', { forkId: 'split', branchId: 'b' }, node('split', 's-fork', 'root/split[b]', 'root', { branchId: 'b' })),
    ev(
      40,
      'node.started',
      { nodeType: 'agent', input: {} },
      node('search', 's-search', 'root/split[a]/search', 's-fork', { branchId: 'a' }),
    ),
    ev(41, 'node.started', { nodeType: 'set', input: {} }, node('noop', 's-noop', 'root/split[b]/noop', 's-fork', { branchId: 'b' })),
    ev(
      45,
      'model.started',
      { model: 'compatible:m', stream: false },
      node('search', 's-model', 'root/split[a]/search', 's-search', { branchId: 'a' }),
    ),
    ev(
      50,
      'node.completed',
      { nodeType: 'set', output: {}, durationMs: 9 },
      node('noop', 's-noop', 'root/split[b]/noop', 's-fork', { branchId: 'b' }),
    ),
    ev(
      60,
      'model.completed',
      {
        model: 'compatible:m',
        text: '',
        toolCalls: [{ id: 'c1', name: 'lookup', arguments: { q: 1 } }],
        usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7, costUsd: 0.5 },
        durationMs: 15,
      },
      node('search', 's-model', 'root/split[a]/search', 's-search', { branchId: 'a' }),
    ),
    ev(
      65,
      'tool.called',
      { name: 'lookup', callId: 'c1', arguments: { q: 1 } },
      node('search', 's-tool', 'root/split[a]/search', 's-search', { branchId: 'a' }),
    ),
    ev(
      80,
      'tool.returned',
      { name: 'lookup', callId: 'c1', error: { code: 'tool_failed', message: 'down' }, durationMs: 15 },
      node('search', 's-tool', 'root/split[a]/search', 's-search', { branchId: 'a' }),
    ),
    ev(
      90,
      'node.completed',
      { nodeType: 'agent', output: { answer: 'x' }, durationMs: 50 },
      node('search', 's-search', 'root/split[a]/search', 's-fork', { branchId: 'a' }),
    ),
    ev(
      91,
      'branch.completed',
      { forkId: 'split', branchId: 'b', status: 'completed', durationMs: 59 },
      node('split', 's-fork', 'root/split[b]', 'root', { branchId: 'b' }),
    ),
    ev(
      92,
      'branch.completed',
      { forkId: 'split', branchId: 'a', status: 'completed', durationMs: 61 },
      node('split', 's-fork', 'root/split[a]', 'root', { branchId: 'a' }),
    ),
    ev(95, 'node.completed', { nodeType: 'fork', output: {}, durationMs: 65 }, node('split', 's-fork')),
    ev(100, 'node.started', { nodeType: 'human', input: {} }, node('plan', 's-plan2')),
    ev(101, 'input.requested', { requestId: 'q1', prompt: 'ok?', form: { kind: 'boolean' }, mode: 'single' }, node('plan', 's-plan2')),
    ev(102, 'run.awaiting', { reason: 'input', requestIds: ['q1'] }),
  ];
}

describe('deriving the run view from events', () => {
  it('pairs spans by spanId + path: branches share the fork span id but are their own spans, nodes hang under their branch', () => {
    const view = deriveRunView(recordedRun());
    const branchA = view.byKey.get('s-fork|root/split[a]');
    expect(branchA).toMatchObject({ kind: 'branch', status: 'completed', parentKey: 's-fork|root/split' });
    expect(view.byKey.get('s-search|root/split[a]/search')).toMatchObject({
      parentKey: 's-fork|root/split[a]',
      depth: 3,
      status: 'completed',
    });
    expect(view.byKey.get('s-tool|root/split[a]/search')).toMatchObject({
      kind: 'tool',
      status: 'failed',
      parentKey: 's-search|root/split[a]/search',
    });
    // The failed tool is marked failed while its node completed.
    expect(view.nodes.get('search')).toEqual({ state: 'completed', executions: 1 });
    expect(view.usage).toEqual({ inputTokens: 5, outputTokens: 2, totalTokens: 7, costUsd: 0.5 });
  });

  it('computes node states, execution counts, traversed edges and open requests', () => {
    const view = deriveRunView(recordedRun());
    expect(view.status).toBe('awaiting_input');
    expect(view.nodes.get('plan')).toEqual({ state: 'waiting', executions: 2 });
    expect([...view.traversed].sort()).toEqual(['plan->split', 'split->plan']);
    expect(view.requests).toEqual([{ requestId: 'q1', kind: 'input', nodeId: 'plan', prompt: 'ok?', seq: 20 }]);
    expect(view.byKey.get('s-plan2|root/plan')).toMatchObject({ status: 'waiting', execution: 2 });
  });

  it('shows a question as a request span under the node that asked, waiting until it is answered', () => {
    const events = recordedRun();
    const waiting = deriveRunView(events).byKey.get('q1|root/plan');
    expect(waiting).toMatchObject({
      kind: 'request',
      label: 'input',
      status: 'waiting',
      parentKey: 's-plan2|root/plan',
      input: { prompt: 'ok?' },
    });
    const answered = [
      ...events,
      ev(150, 'input.answered', { requestId: 'q1', answer: { approved: true }, answeredBy: 'ada' }, node('plan', 's-plan2')),
    ];
    const view = deriveRunView(answered);
    expect(view.byKey.get('q1|root/plan')).toMatchObject({
      status: 'completed',
      endMs: Date.parse(answered.at(-1)!.at),
      output: { answeredBy: 'ada', answer: { approved: true } },
    });
    expect(spanTimes(view.byKey.get('q1|root/plan')!, view).durationMs).toBe(49);
    expect(view.requests).toEqual([]);
  });

  it('names who answered: the actor, and the person a key answered for', () => {
    const events = recordedRun();
    const answeredBy = { kind: 'key', id: 'key_1', name: 'support bot', onBehalfOf: 'ada' };
    const answered = [
      ...events,
      ev(150, 'input.answered', { requestId: 'q1', answer: { approved: true }, answeredBy }, node('plan', 's-plan2')),
    ];
    expect(deriveRunView(answered).byKey.get('q1|root/plan')?.output).toEqual({
      answeredBy: 'support bot on behalf of ada',
      answer: { approved: true },
    });
  });

  it('replays a prefix: the same slice gives graph, spans and status as they were at that point', () => {
    const events = recordedRun();
    const mid = deriveRunView(events, 11);
    expect(mid.status).toBe('running');
    expect(mid.nodes.get('noop')?.state).toBe('completed');
    expect(mid.nodes.get('search')?.state).toBe('running');
    expect(mid.nodes.has('plan') && mid.nodes.get('plan')?.executions).toBe(1);
    expect(mid.spans.filter((s) => s.kind === 'model')).toHaveLength(1);
    expect(mid.latencyMs).toBe(50);
    expect(deriveRunView(events, 0).spans).toHaveLength(0);
  });

  it('never counts a parent and its children twice: self time is the duration minus the union of its children', () => {
    const view = deriveRunView(recordedRun());
    const search = view.byKey.get('s-search|root/split[a]/search')!;
    // 40→90 = 50 ms; the model (45→60) and the tool (65→80) cover 30 ms of it.
    expect(spanTimes(search, view)).toEqual({ durationMs: 50, selfMs: 20 });
    const fork = view.byKey.get('s-fork|root/split')!;
    // Branches a (31→92) and b (32→91) overlap: their union is 61 ms of the fork's 65.
    expect(spanTimes(fork, view)).toEqual({ durationMs: 65, selfMs: 4 });
    expect(view.latencyMs).toBe(102);
  });

  it('closes spans still open when the run ends, and draws the failure path up to the run', () => {
    const events = recordedRun().slice(0, 14);
    seq = 14;
    events.push(
      ev(
        85,
        'node.failed',
        { nodeType: 'agent', error: { code: 'provider_error', message: 'x' }, durationMs: 45 },
        node('search', 's-search', 'root/split[a]/search', 's-fork', { branchId: 'a' }),
      ),
    );
    events.push(ev(86, 'run.failed', { error: { code: 'provider_error', message: 'x' }, durationMs: 86 }));
    const view = deriveRunView(events);
    expect(view.status).toBe('failed');
    expect(view.byKey.get('s-fork|root/split[b]')?.status).toBe('canceled');
    expect([...view.failurePath]).toEqual(['s-search|root/split[a]/search', 's-fork|root/split[a]', 's-fork|root/split', 'root|root']);
  });
});

describe('a run still going, on the live clock', () => {
  it('counts an open span to now, as the header does, and at a replay cursor (no clock) to the last event shown', () => {
    const view = deriveRunView(recordedRun());
    const now = Date.parse(at(0)) + 10_101;
    const request = view.byKey.get('q1|root/plan')!;
    const plan = view.byKey.get('s-plan2|root/plan')!;
    const run = view.spans.find((s) => s.kind === 'run')!;
    // No clock: the last event (run.awaiting at 102 ms) ends what is still open.
    expect(spanTimes(request, view).durationMs).toBe(1);
    // The live clock: the open request, its node and the run run on to now.
    expect(spanTimes(request, view, now).durationMs).toBe(10_000);
    expect(spanTimes(plan, view, now)).toEqual({ durationMs: 10_001, selfMs: 1 });
    expect(spanTimes(run, view, now).durationMs).toBe(10_101);
    // A span that has ended keeps its end.
    expect(spanTimes(view.byKey.get('s-plan1|root/plan')!, view, now).durationMs).toBe(10);
  });
});

describe('what a span holds', () => {
  it('is what the trace recorder stores for it, from the same fold', () => {
    const events = recordedRun();
    const view = deriveRunView(events);
    const recorded = projectEvents(events).spans;
    const drawn = view.spans.filter((span) => span.kind !== 'branch' && span.kind !== 'request');
    expect(drawn.length).toBeGreaterThan(5);
    for (const span of drawn) {
      const patch = recorded.get(spanKey('r1', span.spanId));
      expect(patch).toBeDefined();
      const { input, output, error, usage, model } = patch ?? {};
      expect({ input: span.input, output: span.output, error: span.error, usage: span.usage, model: span.model }).toEqual({
        input,
        output,
        error,
        usage,
        model,
      });
    }
    expect(view.byKey.get('s-model|root/split[a]/search')).toMatchObject({
      output: { text: '', toolCalls: [{ id: 'c1', name: 'lookup', arguments: { q: 1 } }] },
      usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7, costUsd: 0.5 },
    });
    expect(view.byKey.get('s-tool|root/split[a]/search')).toMatchObject({ error: { code: 'tool_failed', message: 'down' } });
  });

  it('keeps an ended run ended, as the trace does, whatever comes after', () => {
    const events = recordedRun().slice(0, 14);
    seq = 14;
    events.push(ev(86, 'run.failed', { error: { code: 'provider_error', message: 'x' }, durationMs: 86 }), ev(87, 'run.started', {}));
    expect(deriveRunView(events).status).toBe('failed');
  });
});

describe('a canceled run', () => {
  it('draws the nodes it stopped as canceled, and leaves finished ones as they were', () => {
    const events = recordedRun().slice(0, 14);
    seq = 14;
    events.push(ev(86, 'run.canceled', { reason: 'wrong customer', durationMs: 86, canceledBy: { kind: 'user', id: 'u1', name: 'Ada' } }));
    const view = deriveRunView(events);
    expect(view.status).toBe('canceled');
    const states = new Set([...view.nodes.values()].map((n) => n.state));
    expect(states.has('running')).toBe(false);
    expect(states.has('canceled')).toBe(true);
    expect(deriveRunView(events.slice(0, 14)).nodes).toEqual(
      new Map([...view.nodes].map(([id, n]) => [id, n.state === 'canceled' ? { ...n, state: 'running' } : n])),
    );
  });
});

describe('the replay cursor', () => {
  it('steps between node completions and reads ?at= safely', () => {
    const events = recordedRun();
    expect(nextStep(events, 0)).toBe(4);
    expect(nextStep(events, 4)).toBe(11);
    expect(previousStep(events, 11)).toBe(4);
    expect(previousStep(events, 4)).toBe(0);
    expect(nextStep(events, 18)).toBe(events.length);
    expect(parseCursor('7', events.length)).toBe(7);
    expect(parseCursor('999', events.length)).toBe(events.length);
    expect(parseCursor('x', events.length)).toBeUndefined();
    expect(parseCursor(null, events.length)).toBeUndefined();
  });
});

describe('a retrieval in the run view', () => {
  it('is a retrieval span under its node, holding the query and the chunks with their scores', () => {
    seq = 0;
    const chunks = [{ id: 'doc_a_0', source: 'refunds.md', score: 0.72, tokens: 9, text: 'Refunds take five days.' }];
    const events = [
      ev(0, 'run.queued', { workflow: { name: 'w', version: 1 }, input: 'q', state: {}, definition: {} }),
      ev(5, 'run.started', { attempt: 1, worker: 'w1' }),
      ev(10, 'node.started', { nodeType: 'retrieve', input: {} }, node('search', 's-search')),
      ev(
        30,
        'retrieval.completed',
        {
          retriever: 'knowledge_base',
          knowledgeBase: 'support',
          version: 1,
          query: 'refunds',
          topK: 3,
          chunkCount: 1,
          topScore: 0.72,
          chunks,
          durationMs: 15,
        },
        node('search', 's-ret', 'root/search', 's-search'),
      ),
    ];
    const view = deriveRunView(events);
    const span = view.spans.find((s) => s.kind === 'retrieval')!;
    expect(span).toMatchObject({
      label: 'retrieve support',
      status: 'completed',
      parentKey: view.spans.find((s) => s.nodeId === 'search' && s.kind === 'node')!.key,
    });
    expect(span.input).toMatchObject({ knowledgeBase: 'support', query: 'refunds', topK: 3 });
    expect(span.output).toEqual({ chunkCount: 1, topScore: 0.72, chunks });
  });
});
