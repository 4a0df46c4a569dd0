import type { RunEventDraft } from '@spindle/contracts';
import { projectEvents } from './project-events';
import { spanKey } from './row-patches';
import { rollUpUsage } from './usage-rollups';
import { completedRunDrafts, failedRunDrafts, queued, runLog, usage } from './run-events.fixture';

const at = (seq: number) => new Date(Date.parse('2025-03-01T10:00:00.000Z') + seq * 1_000).toISOString();

describe('projectEvents', () => {
  it('turns a completed run into a run patch and its root, node and model spans', () => {
    const { runs, spans } = projectEvents(runLog('r1', completedRunDrafts()));

    expect(runs.get('r1')).toEqual({
      runId: 'r1',
      creation: {
        workflow: 'support',
        workflowVersion: 2,
        queuedAt: at(1),
        rootSpanId: 'root',
        forkedFrom: null,
        tenant: 'default',
        startedBy: null,
        parameters: null,
      },
      status: 'completed',
      startedAt: at(2),
      endedAt: at(7),
      // What moves the run's clock: the store folds these into its wall and working time.
      clockEvents: [
        { type: 'run.queued', at: at(1) },
        { type: 'run.completed', at: at(7) },
      ],
      usage: usage(3, 2),
      // The words of the input, then of the output: what the runs list's text search finds.
      searchText: 'hi hello',
      lastSeq: 7,
    });
    expect(spans.get(spanKey('r1', 'root'))).toEqual({
      runId: 'r1',
      spanId: 'root',
      kind: 'run',
      path: 'root',
      status: 'completed',
      startedAt: at(1),
      startSeq: 1,
      input: { question: 'hi' },
      endedAt: at(7),
      endSeq: 7,
      // Wall time, start to end: not the 60 ms the runner reported of its last stretch.
      durationMs: 6_000,
      output: { answer: 'hello' },
    });
    expect(spans.get(spanKey('r1', 'span-reply'))).toEqual({
      runId: 'r1',
      spanId: 'span-reply',
      kind: 'node',
      path: 'root/reply',
      status: 'completed',
      parentSpanId: 'root',
      nodeId: 'reply',
      nodeType: 'llm',
      startedAt: at(3),
      startSeq: 3,
      input: { prompt: 'say hi' },
      endedAt: at(6),
      endSeq: 6,
      durationMs: 3_000,
      output: { answer: 'hello' },
    });
    expect(spans.get(spanKey('r1', 'span-model'))).toEqual({
      runId: 'r1',
      spanId: 'span-model',
      kind: 'model',
      path: 'root/reply',
      status: 'completed',
      parentSpanId: 'span-reply',
      nodeId: 'reply',
      model: 'offline:echo',
      startedAt: at(4),
      startSeq: 4,
      input: { system: 'be brief', prompt: 'say hi' },
      endedAt: at(5),
      endSeq: 5,
      durationMs: 1_000,
      output: { text: 'hello' },
      usage: usage(3, 2),
    });
    expect(spans.size).toBe(3);
  });

  it('records a failed run with its error on the run, the root span and the failing node', () => {
    const { runs, spans } = projectEvents(runLog('r2', failedRunDrafts()));
    const error = { code: 'function_failed', message: 'order 42 not found', nodeId: 'lookup' };
    expect(runs.get('r2')).toMatchObject({ status: 'failed', error, usage: usage(0, 0), lastSeq: 5 });
    expect(spans.get(spanKey('r2', 'root'))).toMatchObject({ status: 'failed', error, endSeq: 5 });
    expect(spans.get(spanKey('r2', 'span-lookup'))).toMatchObject({
      kind: 'node',
      nodeType: 'function',
      status: 'failed',
      error,
      durationMs: 1_000,
    });
  });

  it('adds the tokens of every model call instead of keeping the last', () => {
    const call = (n: number): RunEventDraft[] => {
      const span = { nodeId: 'agent', spanId: `m${n}`, parentSpanId: 'n', path: 'root/agent' };
      return [
        { type: 'model.started', ...span, data: { model: 'm', prompt: 'p', stream: true } },
        { type: 'model.completed', ...span, data: { model: 'm', text: `t${n}`, usage: usage(10 * n, n), durationMs: 1 } },
      ];
    };
    const { runs } = projectEvents(runLog('r', [queued(), ...call(1), ...call(2), ...call(3)]));
    expect(runs.get('r')?.usage).toEqual({ inputTokens: 60, outputTokens: 6, totalTokens: 66, costUsd: 0 });
  });

  it('keeps the files a model call sent on its span input, by reference (count and media types for the trace)', () => {
    const files = [
      { type: 'file' as const, fileId: `file_${'a'.repeat(26)}`, mediaType: 'image/png', bytes: 68, sha256: 'a'.repeat(64) },
      { type: 'file' as const, fileId: `file_${'b'.repeat(26)}`, mediaType: 'application/pdf', bytes: 900, sha256: 'b'.repeat(64) },
    ];
    const span = { nodeId: 'look', spanId: 'm1', parentSpanId: 'n', path: 'root/look' };
    const { spans } = projectEvents(
      runLog('r', [
        queued(),
        { type: 'model.started', ...span, data: { model: 'offline:echo', prompt: 'p', attachments: files, stream: false } },
      ]),
    );
    const input = spans.get(spanKey('r', 'm1'))?.input as { attachments: Array<{ mediaType: string }> };
    expect(input.attachments).toEqual(files);
    // A call without files has no such field, as before.
    const plain = projectEvents(
      runLog('r', [queued(), { type: 'model.started', ...span, data: { model: 'm', prompt: 'p', stream: false } }]),
    );
    expect(plain.spans.get(spanKey('r', 'm1'))?.input).toEqual({ prompt: 'p' });
  });

  it('pairs start and end by spanId, so a node that runs twice in a loop gives two spans', () => {
    const round = (spanId: string, iteration: number): RunEventDraft[] => {
      const span = { nodeId: 'step', spanId, parentSpanId: 'root', path: 'root/loop/step', iteration };
      return [
        { type: 'node.started', ...span, data: { nodeType: 'set', input: { round: iteration } } },
        { type: 'node.completed', ...span, data: { nodeType: 'set', output: { round: iteration }, durationMs: 1 } },
      ];
    };
    const { spans } = projectEvents(runLog('r', [queued(), ...round('s-a', 0), ...round('s-b', 1)]));
    expect(spans.get(spanKey('r', 's-a'))).toMatchObject({ nodeId: 'step', iteration: 0, status: 'completed', startSeq: 2, endSeq: 3 });
    expect(spans.get(spanKey('r', 's-b'))).toMatchObject({ nodeId: 'step', iteration: 1, status: 'completed', startSeq: 4, endSeq: 5 });
  });

  it('writes a closing event whose start came in an earlier batch with everything a row needs', () => {
    const log = runLog('r1', completedRunDrafts());
    const { runs, spans } = projectEvents(log.slice(5));
    expect(runs.get('r1')).toEqual({
      runId: 'r1',
      status: 'completed',
      endedAt: at(7),
      clockEvents: [{ type: 'run.completed', at: at(7) }],
      usage: usage(0, 0),
      searchText: 'hello',
      lastSeq: 7,
    });
    expect(spans.get(spanKey('r1', 'span-reply'))).toEqual({
      runId: 'r1',
      spanId: 'span-reply',
      kind: 'node',
      path: 'root/reply',
      status: 'completed',
      parentSpanId: 'root',
      nodeId: 'reply',
      nodeType: 'llm',
      endedAt: at(6),
      endSeq: 6,
      output: { answer: 'hello' },
    });
  });

  it('folds a batch in seq order per run and never lets a later event reopen a terminal run', () => {
    const log = runLog('r1', [
      ...completedRunDrafts(),
      { type: 'run.resumed', spanId: 'root', path: 'root', data: { reason: 'worker_lost', attempt: 2, worker: 'w2' } },
    ]);
    const shuffled = [log[6], log[7], log[0], log[3], log[1], log[5], log[2], log[4]];
    const { runs, spans } = projectEvents(shuffled);
    expect(runs.get('r1')).toMatchObject({ status: 'completed', startedAt: at(2), lastSeq: 8 });
    expect(spans.get(spanKey('r1', 'span-reply'))).toMatchObject({ status: 'completed', startSeq: 3, endSeq: 6 });
  });

  it('ignores a stray start for a spanId that already closed', () => {
    const node = { nodeId: 'n', spanId: 's', path: 'root/n' };
    const { spans } = projectEvents(
      runLog('r', [
        queued(),
        { type: 'node.started', ...node, data: { nodeType: 'set', input: {} } },
        { type: 'node.completed', ...node, data: { nodeType: 'set', output: {}, durationMs: 1 } },
        { type: 'node.started', ...node, data: { nodeType: 'set', input: {} } },
      ]),
    );
    expect(spans.get(spanKey('r', 's'))).toMatchObject({ status: 'completed', startSeq: 2, endSeq: 3 });
  });

  it('follows awaiting and resumed, keeps the first start, and records a cancel and a fork', () => {
    const { runs } = projectEvents(
      runLog('r', [
        queued('support', { forkedFrom: { runId: 'r0', seq: 4 } }),
        { type: 'run.started', spanId: 'root', path: 'root', data: { attempt: 1, worker: 'w1' } },
        { type: 'run.awaiting', spanId: 'root', path: 'root', data: { reason: 'tool_approval' } },
      ]),
    );
    expect(runs.get('r')).toMatchObject({
      status: 'awaiting_approval',
      startedAt: at(2),
      creation: { forkedFrom: { runId: 'r0', seq: 4 } },
    });

    const later = projectEvents(
      runLog(
        'r',
        [
          { type: 'run.resumed', spanId: 'root', path: 'root', data: { reason: 'answered', attempt: 1, worker: 'w1' } },
          { type: 'run.started', spanId: 'root', path: 'root', data: { attempt: 2, worker: 'w2' } },
          { type: 'run.awaiting', spanId: 'root', path: 'root', data: { reason: 'input' } },
          { type: 'run.canceled', spanId: 'root', path: 'root', data: { reason: 'user asked' } },
        ],
        4,
      ),
    );
    expect(later.runs.get('r')).toMatchObject({
      status: 'canceled',
      startedAt: at(5),
      endedAt: at(7),
      error: { code: 'canceled', message: 'user asked' },
    });
    expect(later.runs.get('r')?.clockEvents.map((e) => e.type)).toEqual(['run.resumed', 'run.awaiting', 'run.canceled']);
  });

  it('draws tool calls as tool spans, a returned error as a failed span', () => {
    const ok = { nodeId: 'agent', spanId: 't1', parentSpanId: 'n', path: 'root/agent' };
    const bad = { nodeId: 'agent', spanId: 't2', parentSpanId: 'n', path: 'root/agent' };
    const { spans } = projectEvents(
      runLog('r', [
        queued(),
        { type: 'tool.called', ...ok, data: { name: 'lookup_order', callId: 'c1', arguments: { id: 42 } } },
        { type: 'tool.returned', ...ok, data: { name: 'lookup_order', callId: 'c1', result: { status: 'shipped' }, durationMs: 12 } },
        { type: 'tool.called', ...bad, data: { name: 'refund', callId: 'c2', arguments: { id: 42 } } },
        {
          type: 'tool.returned',
          ...bad,
          data: { name: 'refund', callId: 'c2', error: { code: 'tool_failed', message: 'card declined' }, durationMs: 3 },
        },
      ]),
    );
    expect(spans.get(spanKey('r', 't1'))).toMatchObject({
      kind: 'tool',
      nodeType: 'lookup_order',
      input: { id: 42 },
      output: { status: 'shipped' },
      status: 'completed',
      durationMs: 1_000,
    });
    expect(spans.get(spanKey('r', 't2'))).toMatchObject({
      kind: 'tool',
      status: 'failed',
      error: { code: 'tool_failed', message: 'card declined' },
    });
    expect(spans.get(spanKey('r', 't2'))).not.toHaveProperty('output');
  });

  // Answered in a log written before identity: who answered is a bare string there, read as an actor.
  it('draws a request as a span of its own under the node that asked, from the question to the answer', () => {
    const ask = { nodeId: 'review', spanId: 'n-review', parentSpanId: 'root', path: 'root/review' };
    const refund = { nodeId: 'refunds', spanId: 'n-refunds', parentSpanId: 'root', path: 'root/refunds' };
    const call = { callId: 'c1', name: 'refund', arguments: { amount: 40 }, argumentsHash: 'h-40' };
    const { spans } = projectEvents(
      runLog('r', [
        queued(),
        { type: 'input.requested', ...ask, data: { requestId: 'req-a', prompt: 'Ship it?', form: { kind: 'boolean' }, mode: 'single' } },
        {
          type: 'input.answered',
          ...ask,
          data: { requestId: 'req-a', answer: { approved: true }, answeredBy: 'ada' },
        } as unknown as RunEventDraft,
        { type: 'approval.requested', ...refund, data: { requestId: 'req-b', prompt: 'Refund?', call, mode: 'single', expiresAt: at(9) } },
        {
          type: 'approval.resolved',
          ...refund,
          data: { requestId: 'req-b', decision: 'rejected', ...call, timedOut: true, answeredBy: 'system:timeout' },
        } as unknown as RunEventDraft,
      ]),
    );
    expect(spans.get(spanKey('r', 'req-a'))).toEqual({
      runId: 'r',
      spanId: 'req-a',
      kind: 'request',
      path: 'root/review',
      status: 'completed',
      parentSpanId: 'n-review',
      nodeId: 'review',
      nodeType: 'input',
      startedAt: at(2),
      startSeq: 2,
      input: { prompt: 'Ship it?', form: { kind: 'boolean' }, mode: 'single' },
      endedAt: at(3),
      endSeq: 3,
      durationMs: 1_000,
      output: { answeredBy: { kind: 'user', id: 'ada', name: 'ada' }, answer: { approved: true } },
    });
    // An approval nobody gave in time failed, whatever edge its node then took.
    expect(spans.get(spanKey('r', 'req-b'))).toMatchObject({
      kind: 'request',
      nodeType: 'approval',
      parentSpanId: 'n-refunds',
      status: 'failed',
      durationMs: 1_000,
      input: { call, expiresAt: at(9) },
      error: { code: 'input_timeout' },
    });
    expect(spans.get(spanKey('r', 'req-b'))).not.toHaveProperty('output');
    // The node spans are untouched: a request does not open or close its node.
    expect(spans.has(spanKey('r', 'n-review'))).toBe(false);
  });

  it('only advances lastSeq for events the trace does not draw, and keeps runs apart', () => {
    const { runs, spans } = projectEvents([
      ...runLog('a', [queued()]),
      ...runLog('b', [
        { type: 'custom', spanId: 'root', path: 'root', data: { note: 1 } },
        {
          type: 'checkpoint.saved',
          spanId: 'root',
          path: 'root',
          data: { checkpointId: 'cp-1', step: 1, state: {}, frontier: [], graphHash: 'h' },
        },
      ]),
    ]);
    expect(runs.get('a')).toMatchObject({ status: 'queued', lastSeq: 1 });
    expect(runs.get('b')).toEqual({ runId: 'b', usage: usage(0, 0), lastSeq: 2, clockEvents: [] });
    expect([...spans.keys()]).toEqual([spanKey('a', 'root')]);
  });
});

describe('rollUpUsage', () => {
  it('adds every model call per node and per branch, counting calls so repeats show', () => {
    const model = (nodeId: string, branchId: string | null, totalTokens: number, costUsd: number) =>
      ({ kind: 'model', nodeId, branchId, usage: { inputTokens: totalTokens - 1, outputTokens: 1, totalTokens, costUsd } }) as never;
    const rollups = rollUpUsage([
      model('billing', 'b', 10, 0.001),
      model('billing', 'b', 20, 0.002),
      model('triage', null, 5, 0),
      { kind: 'node', nodeId: 'billing', usage: null } as never,
    ]);
    expect(rollups.byNode).toEqual({
      billing: { calls: 2, inputTokens: 28, outputTokens: 2, totalTokens: 30, costUsd: 0.003 },
      triage: { calls: 1, inputTokens: 4, outputTokens: 1, totalTokens: 5, costUsd: 0 },
    });
    expect(rollups.byBranch).toEqual({ b: { calls: 2, inputTokens: 28, outputTokens: 2, totalTokens: 30, costUsd: 0.003 } });
  });

  it('draws a context cut and a memory compaction as instant spans under their node, with their figures', () => {
    const node = { nodeId: 'support', parentSpanId: 'span-support', path: 'root/support' };
    const drafts: RunEventDraft[] = [
      queued(),
      {
        type: 'context.truncated',
        ...node,
        spanId: 'cut-1',
        data: { kind: 'tool_result', target: 'export_orders', tokensBefore: 50_000, tokensAfter: 1_200, strategy: 'sentence' },
      },
      {
        type: 'memory.compacted',
        ...node,
        spanId: 'mem-1',
        data: {
          memoryKey: 'messages',
          trigger: 'messages',
          messagesBefore: 62,
          messagesAfter: 6,
          tokensBefore: 4_000,
          tokensAfter: 300,
          summary: 'They asked about orders.',
          summaryModel: 'offline:echo',
        },
      },
    ];
    const { spans } = projectEvents(runLog('r1', drafts));
    const instant = (seq: number) => ({
      startedAt: at(seq),
      endedAt: at(seq),
      startSeq: seq,
      endSeq: seq,
      durationMs: 0,
      status: 'completed',
    });
    expect(spans.get(spanKey('r1', 'cut-1'))).toEqual({
      runId: 'r1',
      spanId: 'cut-1',
      kind: 'context',
      ...node,
      ...instant(2),
      nodeType: 'tool_result',
      input: { kind: 'tool_result', target: 'export_orders', strategy: 'sentence' },
      output: { tokensBefore: 50_000, tokensAfter: 1_200 },
    });
    expect(spans.get(spanKey('r1', 'mem-1'))).toMatchObject({
      kind: 'memory',
      ...instant(3),
      nodeType: 'messages',
      input: { memoryKey: 'messages', trigger: 'messages', messagesBefore: 62, tokensBefore: 4_000 },
      output: { messagesAfter: 6, tokensAfter: 300, summary: 'They asked about orders.', summaryModel: 'offline:echo' },
    });
  });
});

describe('what user code said', () => {
  const fn = { nodeId: 'lookup', path: 'root/lookup', parentSpanId: 'span-lookup', branchId: 'b1' };
  const tool = { nodeId: 'support', path: 'root/support', parentSpanId: 'span-call' };
  const reported = (costUsd: number) => ({ inputTokens: 0, outputTokens: 0, totalTokens: 0, costUsd });
  const drafts: RunEventDraft[] = [
    queued(),
    { type: 'custom', ...fn, spanId: 'ev-1', data: { name: 'order.looked_up', data: { orderId: 42 } } },
    {
      type: 'usage.reported',
      ...fn,
      spanId: 'use-1',
      data: {
        usage: reported(0.25),
        units: { lookups: 1 },
        label: 'order API',
        source: { kind: 'function', name: 'lookup_order' },
        runUsage: reported(0.25),
      },
    },
    {
      type: 'attempt.failed',
      ...tool,
      spanId: 'try-1',
      data: {
        kind: 'tool',
        name: 'fetch_page',
        callId: 'c1',
        attempt: 1,
        error: { code: 'tool_failed', message: 'Error (correlation id x1)', correlationId: 'x1' },
        retryInMs: 100,
      },
    },
    {
      type: 'usage.reported',
      ...tool,
      spanId: 'use-2',
      data: {
        usage: { ...usage(10, 5), costUsd: 0.01 },
        source: { kind: 'tool', name: 'fetch_page', callId: 'c1' },
        runUsage: reported(0.26),
      },
    },
    {
      type: 'model.completed',
      ...tool,
      spanId: 'model-1',
      data: { model: 'offline:echo', text: 'ok', usage: { ...usage(3, 2), costUsd: 0.5 }, durationMs: 10 },
    },
  ];

  it('draws each as an instant under its span, and counts reported usage in the run like a model call’s', () => {
    const { runs, spans } = projectEvents(runLog('r1', drafts));
    expect(spans.get(spanKey('r1', 'ev-1'))).toMatchObject({
      kind: 'custom',
      parentSpanId: 'span-lookup',
      nodeId: 'lookup',
      status: 'completed',
      durationMs: 0,
      nodeType: 'order.looked_up',
      output: { orderId: 42 },
    });
    expect(spans.get(spanKey('r1', 'use-1'))).toMatchObject({
      kind: 'usage',
      parentSpanId: 'span-lookup',
      branchId: 'b1',
      nodeType: 'lookup_order',
      input: { source: { kind: 'function', name: 'lookup_order' }, label: 'order API', units: { lookups: 1 } },
      usage: reported(0.25),
    });
    expect(spans.get(spanKey('r1', 'try-1'))).toMatchObject({
      kind: 'attempt',
      parentSpanId: 'span-call',
      status: 'failed',
      nodeType: 'fetch_page',
      input: { kind: 'tool', name: 'fetch_page', callId: 'c1', attempt: 1 },
      output: { retryInMs: 100 },
      error: { code: 'tool_failed', correlationId: 'x1' },
    });
    expect(runs.get('r1')?.usage).toEqual({ inputTokens: 13, outputTokens: 7, totalTokens: 20, costUsd: 0.76 });
  });

  it('rolls reported usage up into its node’s and branch’s totals without counting it as a model call', () => {
    const { spans } = projectEvents(runLog('r1', drafts));
    const trace = [...spans.values()].map((s) => ({
      ...s,
      branchId: s.branchId ?? null,
      nodeId: s.nodeId ?? null,
      usage: s.usage ?? null,
    }));
    const rollups = rollUpUsage(trace as never);
    expect(rollups.byNode).toEqual({
      lookup: { calls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0, costUsd: 0.25 },
      support: { calls: 1, inputTokens: 13, outputTokens: 7, totalTokens: 20, costUsd: 0.51 },
    });
    expect(rollups.byBranch).toEqual({ b1: { calls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0, costUsd: 0.25 } });
  });
});
