import type { RunEvent, RunEventDraft } from '@spindle/contracts';
import { validateDefinition } from '../definition/validate-definition';
import { toolArgumentsHash } from '../executors/tool-approval';
import { recordingEnvironment, scriptedModel, toolCalls } from '../testing/in-process-ports';
import { executeRun, type RunStart } from './execute-run';

const start = (definition: unknown, extra: Partial<RunStart> = {}): RunStart => ({
  definition: validateDefinition(definition),
  state: { input: 'order 7' },
  attempt: 1,
  worker: 'w1',
  ...extra,
});

/** Appends what the gateway appends when a person answers: an answer bound to the request's span. */
function answer(events: RunEvent[], draft: (requested: RunEvent) => RunEventDraft): RunEvent[] {
  const requested = events.filter((e) => e.type === 'input.requested' || e.type === 'approval.requested').at(-1)!;
  const d = draft(requested);
  return [...events, { ...d, runId: 'run-1', seq: events.length + 1, at: new Date(Date.UTC(2026, 0, 2)).toISOString() } as RunEvent];
}

const envelope = (e: RunEvent) => ({ nodeId: e.nodeId, spanId: e.spanId, parentSpanId: e.parentSpanId, path: e.path });
const types = (events: RunEvent[]) => events.map((e) => `${e.type}:${e.nodeId ?? ''}`);

describe('a run that waits for a person', () => {
  const definition = {
    kind: 'graph',
    nodes: [
      { id: 'draft', type: 'llm', model: 'offline:echo', prompt: 'draft a reply to {{input}}', output_key: 'draft' },
      { id: 'review', type: 'human', prompt: 'Send this? {{draft}}', form: 'boolean', timeout_ms: 60_000 },
      { id: 'send', type: 'set', values: { sent: true } },
      { id: 'discard', type: 'set', values: { sent: false } },
      { id: 'late', type: 'set', values: { late: true } },
    ],
    edges: [
      { from: 'draft', to: 'review' },
      { from: 'review', to: 'send' },
      { from: 'review', to: 'discard', handle: 'rejected' },
      { from: 'review', to: 'late', handle: 'timeout' },
    ],
  };

  async function untilWaiting() {
    const model = scriptedModel(['Dear customer']);
    const first = recordingEnvironment({ model });
    const outcome = await executeRun(start(definition), first.env);
    return { outcome, events: first.events, model };
  }

  it('asks, lets go of the run, and continues on the answer without repeating a step', async () => {
    const { outcome, events, model } = await untilWaiting();
    expect(outcome).toMatchObject({ status: 'awaiting', requestIds: ['req-1'] });
    expect(types(events).slice(-3)).toEqual(['node.started:review', 'input.requested:review', 'run.awaiting:']);
    const requested = events.find((e) => e.type === 'input.requested')!;
    expect(requested.data).toMatchObject({
      requestId: 'req-1',
      prompt: 'Send this? Dear customer',
      form: { kind: 'boolean' },
      mode: 'single',
      expiresAt: expect.any(String),
    });

    const answered = answer(
      events,
      (r) =>
        ({
          type: 'input.answered',
          ...envelope(r),
          data: { requestId: 'req-1', answer: { approved: true }, answeredBy: { kind: 'user', id: 'ada', name: 'ada' } },
        }) as RunEventDraft,
    );
    const resumed = recordingEnvironment({ prior: answered, model });
    const done = await executeRun(start(definition, { resume: { reason: 'answered' } }), resumed.env);

    expect(done).toMatchObject({ status: 'completed', output: { draft: 'Dear customer', review: { approved: true }, sent: true } });
    expect(model.requests).toHaveLength(1);
    const added = resumed.events.slice(answered.length);
    expect(types(added)).toEqual([
      'run.resumed:',
      'node.completed:review',
      'checkpoint.saved:',
      'node.started:send',
      'node.completed:send',
      'checkpoint.saved:',
      'run.completed:',
    ]);
    // The review node closes under the span it opened with before the pause, and its duration is that whole span, the wait included.
    expect(added[1].spanId).toBe(requested.spanId);
    const reviewStarted = events.find((e) => e.type === 'node.started' && e.nodeId === 'review')!;
    expect((added[1].data as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(
      Date.parse(answered.at(-1)!.at) - Date.parse(reviewStarted.at),
    );
    expect(added.map((e) => e.seq)).toEqual(added.map((_, i) => answered.length + i + 1));
    // Usage continues from the recorded totals: the first call's tokens are not lost or doubled.
    expect(done.usage.totalTokens).toBe(5);
  });

  it('follows rejected on a refusal and timeout when the request expired', async () => {
    const { events, model } = await untilWaiting();
    const refused = answer(
      events,
      (r) =>
        ({
          type: 'input.answered',
          ...envelope(r),
          data: { requestId: 'req-1', answer: { approved: false }, answeredBy: { kind: 'user', id: 'ada', name: 'ada' } },
        }) as RunEventDraft,
    );
    const onRefusal = await executeRun(
      start(definition, { resume: { reason: 'answered' } }),
      recordingEnvironment({ prior: refused, model }).env,
    );
    expect(onRefusal).toMatchObject({ status: 'completed', output: { sent: false } });

    const expired = answer(
      events,
      (r) =>
        ({
          type: 'input.answered',
          ...envelope(r),
          data: { requestId: 'req-1', timedOut: true, answeredBy: { kind: 'system', id: 'timeout', name: 'time-out' } },
        }) as RunEventDraft,
    );
    const onTimeout = await executeRun(
      start(definition, { resume: { reason: 'answered' } }),
      recordingEnvironment({ prior: expired, model }).env,
    );
    expect(onTimeout).toMatchObject({ status: 'completed', output: { late: true } });
  });

  it('fails with input_timeout when the request expired and no timeout edge is wired', async () => {
    const bare = { kind: 'graph', nodes: [{ id: 'ask', type: 'human', prompt: 'name?', form: 'text', timeout_ms: 1000 }] };
    const first = recordingEnvironment();
    await executeRun(start(bare), first.env);
    const expired = answer(
      first.events,
      (r) =>
        ({
          type: 'input.answered',
          ...envelope(r),
          data: { requestId: 'req-1', timedOut: true, answeredBy: { kind: 'system', id: 'timeout', name: 'time-out' } },
        }) as RunEventDraft,
    );
    const outcome = await executeRun(start(bare, { resume: { reason: 'answered' } }), recordingEnvironment({ prior: expired }).env);
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'input_timeout', nodeId: 'ask' } });
  });

  it('in a fork, lets the other branches finish, then continues only the paused one', async () => {
    let lookups = 0;
    const functions = { lookup: () => ({ found: ++lookups }) };
    const forked = {
      kind: 'graph',
      nodes: [
        {
          id: 'split',
          type: 'fork',
          branches: {
            ask: {
              nodes: [
                { id: 'q', type: 'human', prompt: 'why?', form: 'text' },
                { id: 'after', type: 'set', values: { reason: '{{q.text}}' } },
              ],
              edges: [{ from: 'q', to: 'after' }],
            },
            work: { nodes: [{ id: 'look', type: 'function', function: 'lookup' }] },
          },
        },
      ],
    };
    const first = recordingEnvironment({ functions });
    expect(await executeRun(start(forked), first.env)).toMatchObject({ status: 'awaiting', requestIds: ['req-1'] });
    expect(first.events.filter((e) => e.type === 'branch.completed').map((e) => e.branchId)).toEqual(['work']);

    const answered = answer(
      first.events,
      (r) =>
        ({
          type: 'input.answered',
          ...envelope(r),
          data: { requestId: 'req-1', answer: { text: 'because' }, answeredBy: { kind: 'user', id: 'ada', name: 'ada' } },
        }) as RunEventDraft,
    );
    const resumed = recordingEnvironment({ prior: answered, functions });
    const done = await executeRun(start(forked, { resume: { reason: 'answered' } }), resumed.env);
    expect(done).toMatchObject({
      status: 'completed',
      output: { split: { ask: { q: { text: 'because' }, reason: 'because' }, work: { found: 1 } } },
    });
    expect(lookups).toBe(1);
    const added = resumed.events.slice(answered.length);
    expect(added.filter((e) => e.type === 'branch.started')).toHaveLength(0);
    expect(added.filter((e) => e.type === 'branch.completed').map((e) => e.branchId)).toEqual(['ask']);
  });
});

describe('tool approval', () => {
  const definition = {
    kind: 'graph',
    nodes: [
      {
        id: 'refund',
        type: 'agent',
        model: 'offline:echo',
        prompt: 'refund {{input}}',
        tools: ['issue_refund'],
        approval: ['issue_refund'],
      },
      { id: 'escalate', type: 'set', values: { escalated: true } },
    ],
    edges: [{ from: 'refund', to: 'escalate', handle: 'rejected' }],
  };
  const call = { id: 'call_1', name: 'issue_refund', arguments: { order: 7, amount: 30 } };

  async function untilApproval(replies: Parameters<typeof scriptedModel>[0]) {
    const model = scriptedModel(replies);
    const refunds: unknown[] = [];
    const tools = { issue_refund: (args: Record<string, unknown>) => (refunds.push(args), { refunded: args.amount }) };
    const first = recordingEnvironment({ model, tools });
    const outcome = await executeRun(start(definition), first.env);
    return { outcome, events: first.events, model, tools, refunds };
  }

  it('pauses before the tool with the exact call, and runs that call on approval without asking the model again', async () => {
    const { outcome, events, model, tools, refunds } = await untilApproval([toolCalls(call), 'Refunded $30.']);
    expect(outcome).toMatchObject({ status: 'awaiting' });
    expect(events.at(-1)).toMatchObject({ type: 'run.awaiting', data: { reason: 'tool_approval', requestIds: ['req-1'] } });
    const requested = events.find((e) => e.type === 'approval.requested')!;
    expect(requested.data).toEqual({
      requestId: 'req-1',
      prompt: expect.stringContaining('issue_refund'),
      mode: 'single',
      call: {
        callId: 'call_1',
        name: 'issue_refund',
        arguments: { order: 7, amount: 30 },
        argumentsHash: toolArgumentsHash({ amount: 30, order: 7 }),
      },
    });
    expect(refunds).toEqual([]);

    const approved = answer(
      events,
      (r) =>
        ({
          type: 'approval.resolved',
          ...envelope(r),
          data: {
            requestId: 'req-1',
            decision: 'approved',
            callId: 'call_1',
            name: 'issue_refund',
            argumentsHash: toolArgumentsHash(call.arguments),
            answeredBy: { kind: 'user', id: 'ada', name: 'ada' },
          },
        }) as RunEventDraft,
    );
    const resumed = recordingEnvironment({ prior: approved, model, tools });
    const done = await executeRun(start(definition, { resume: { reason: 'answered' } }), resumed.env);
    expect(done).toMatchObject({ status: 'completed', output: { output: 'Refunded $30.' } });
    expect(refunds).toEqual([{ order: 7, amount: 30 }]);
    // One call before the pause, one after: the first turn was replayed from the log.
    expect(model.requests).toHaveLength(2);
    expect(resumed.events.slice(approved.length).find((e) => e.type === 'tool.called')?.data).toMatchObject({
      callId: 'call_1',
      arguments: { order: 7, amount: 30 },
    });
  });

  it('on rejection skips the tool, tells the model why, and routes to rejected', async () => {
    const { events, model, tools, refunds } = await untilApproval([toolCalls(call), 'I will escalate instead.']);
    const rejected = answer(
      events,
      (r) =>
        ({
          type: 'approval.resolved',
          ...envelope(r),
          data: {
            requestId: 'req-1',
            decision: 'rejected',
            message: 'Refunds over $20 need a manager',
            callId: 'call_1',
            name: 'issue_refund',
            argumentsHash: toolArgumentsHash(call.arguments),
            answeredBy: { kind: 'user', id: 'ada', name: 'ada' },
          },
        }) as RunEventDraft,
    );
    const done = await executeRun(
      start(definition, { resume: { reason: 'answered' } }),
      recordingEnvironment({ prior: rejected, model, tools }).env,
    );
    expect(done).toMatchObject({ status: 'completed', output: { escalated: true, output: 'I will escalate instead.' } });
    expect(refunds).toEqual([]);
    expect(model.requests[1].messages.at(-1)).toMatchObject({
      role: 'tool',
      toolCallId: 'call_1',
      content: expect.stringContaining('Refunds over $20 need a manager'),
    });
  });

  it('never applies a decision bound to different arguments', async () => {
    const { events, model, tools, refunds } = await untilApproval([toolCalls(call)]);
    const forged = answer(
      events,
      (r) =>
        ({
          type: 'approval.resolved',
          ...envelope(r),
          data: {
            requestId: 'req-1',
            decision: 'approved',
            callId: 'call_1',
            name: 'issue_refund',
            argumentsHash: toolArgumentsHash({ order: 7, amount: 3000 }),
            answeredBy: { kind: 'user', id: 'mallory', name: 'mallory' },
          },
        }) as RunEventDraft,
    );
    const outcome = await executeRun(
      start(definition, { resume: { reason: 'answered' } }),
      recordingEnvironment({ prior: forged, model, tools }).env,
    );
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'approval_binding_mismatch' } });
    expect(refunds).toEqual([]);
  });

  describe('with a time limit', () => {
    const timed = (edges: unknown[]) => ({
      kind: 'graph',
      nodes: [
        {
          id: 'refund',
          type: 'agent',
          model: 'offline:echo',
          prompt: 'refund {{input}}',
          tools: ['issue_refund'],
          approval: true,
          approval_timeout_ms: 60_000,
        },
        { id: 'hold', type: 'set', values: { held: true } },
      ],
      edges,
    });
    const expire = (events: RunEvent[]) =>
      answer(
        events,
        (r) =>
          ({
            type: 'approval.resolved',
            ...envelope(r),
            data: {
              requestId: 'req-1',
              decision: 'rejected',
              timedOut: true,
              callId: 'call_1',
              name: 'issue_refund',
              argumentsHash: toolArgumentsHash(call.arguments),
              answeredBy: { kind: 'system', id: 'timeout', name: 'time-out' },
            },
          }) as RunEventDraft,
      );

    async function expiredRun(definition: unknown) {
      const model = scriptedModel([toolCalls(call), 'never asked']);
      const refunds: unknown[] = [];
      const tools = { issue_refund: (args: Record<string, unknown>) => (refunds.push(args), { refunded: args.amount }) };
      const first = recordingEnvironment({ model, tools });
      await executeRun(start(definition), first.env);
      const requested = first.events.find((e) => e.type === 'approval.requested');
      const outcome = await executeRun(
        start(definition, { resume: { reason: 'answered' } }),
        recordingEnvironment({ prior: expire(first.events), model, tools }).env,
      );
      return { outcome, requested, refunds, model };
    }

    it('says when the request expires, and then leaves on the timeout edge without the call or another model call', async () => {
      const { outcome, requested, refunds, model } = await expiredRun(timed([{ from: 'refund', to: 'hold', handle: 'timeout' }]));
      expect(requested?.data).toMatchObject({ expiresAt: expect.any(String) });
      // The time limit counts from when the request was asked (the test clock ticks between the two reads).
      const lead = Date.parse((requested?.data as { expiresAt: string }).expiresAt) - Date.parse(requested!.at);
      expect(lead).toBeGreaterThanOrEqual(60_000);
      expect(lead).toBeLessThan(61_000);
      expect(outcome).toMatchObject({ status: 'completed', output: { held: true } });
      expect(refunds).toEqual([]);
      expect(model.requests).toHaveLength(1);
    });

    it('fails with input_timeout when no timeout edge is wired', async () => {
      const { outcome, refunds } = await expiredRun(timed([{ from: 'refund', to: 'hold' }]));
      expect(outcome).toMatchObject({ status: 'failed', error: { code: 'input_timeout' } });
      expect(refunds).toEqual([]);
    });

    it('is refused on an agent without approval, and so is a timeout edge from an agent without a time limit', () => {
      expect(() =>
        validateDefinition({ kind: 'graph', nodes: [{ id: 'a', type: 'agent', model: 'offline:echo', approval_timeout_ms: 1000 }] }),
      ).toThrow(/approval_timeout_ms/);
      expect(() =>
        validateDefinition({
          ...timed([]),
          nodes: [
            { id: 'refund', type: 'agent', model: 'offline:echo', approval: true },
            { id: 'hold', type: 'set', values: { held: true } },
          ],
          edges: [{ from: 'refund', to: 'hold', handle: 'timeout' }],
        }),
      ).toThrow(/not "timeout"/);
    });
  });
});

describe('resuming after a lost worker', () => {
  const definition = {
    kind: 'graph',
    nodes: ['a', 'b', 'c'].map((id) => ({ id, type: 'llm', model: 'offline:echo', prompt: `step ${id} {{input}}`, output_key: id })),
    edges: [
      { from: 'a', to: 'b' },
      { from: 'b', to: 'c' },
    ],
  };

  it('continues from the log: finished nodes and recorded calls are not repeated, the open node closes under its span', async () => {
    const full = recordingEnvironment({ model: scriptedModel(['A', 'B', 'C']) });
    await executeRun(start(definition), full.env);
    // The runner died right after b's model call was recorded, before b completed.
    const cut = full.events.findIndex((e) => e.type === 'model.completed' && e.nodeId === 'b') + 1;
    const prior = full.events.slice(0, cut);
    const model = scriptedModel(['C']);
    const resumed = recordingEnvironment({ prior, model });
    const outcome = await executeRun(start(definition, { attempt: 2, resume: { reason: 'worker_lost' } }), resumed.env);
    expect(outcome).toMatchObject({ status: 'completed', output: { a: 'A', b: 'B', c: 'C' } });
    expect(model.requests.map((r) => r.messages[0])).toEqual([{ role: 'user', content: 'step c order 7' }]);
    const added = resumed.events.slice(cut);
    expect(types(added)).toEqual([
      'run.resumed:',
      'node.completed:b',
      'checkpoint.saved:',
      'node.started:c',
      'model.started:c',
      'model.completed:c',
      'node.completed:c',
      'checkpoint.saved:',
      'run.completed:',
    ]);
    expect(added[0].data).toEqual({ reason: 'worker_lost', attempt: 2, worker: 'w1' });
    expect(resumed.events.filter((e) => e.type === 'node.started' && e.nodeId === 'b')).toHaveLength(1);
    expect(
      new Set(resumed.events.filter((e) => e.type === 'checkpoint.saved').map((e) => (e.data as { checkpointId: string }).checkpointId))
        .size,
    ).toBe(3);
  });
});

describe('checkpoints, stored results and forks', () => {
  const definition = {
    kind: 'graph',
    nodes: [
      {
        id: 'plan',
        type: 'llm',
        model: 'offline:echo',
        prompt: 'plan {{input}}',
        output_key: 'plan',
        checkpoint: true,
        volatile_keys: ['requestedAt'],
      },
      { id: 'act', type: 'llm', model: 'offline:echo', prompt: 'act on {{plan}}', output_key: 'result', checkpoint: true },
    ],
    edges: [{ from: 'plan', to: 'act' }],
  };

  it('saves a checkpoint with what changed and the frontier at every top-level boundary', async () => {
    const { env, events } = recordingEnvironment({ model: scriptedModel(['P', 'R']) });
    await executeRun(start(definition), env);
    const saved = events.filter((e) => e.type === 'checkpoint.saved').map((e) => e.data);
    // The input is in `run.queued`; each checkpoint holds only the keys its step changed.
    expect(saved).toEqual([
      { checkpointId: 'cp-1', step: 1, changes: { plan: 'P' }, frontier: ['act'], graphHash: expect.stringMatching(/^[0-9a-f]{32}$/) },
      { checkpointId: 'cp-2', step: 2, changes: { result: 'R' }, frontier: [], graphHash: expect.any(String) },
    ]);
  });

  it('reuses a stored result for the same input (volatile keys aside) and runs again when the input changed', async () => {
    const stored = new Map<string, { output: Record<string, unknown>; handle: null }>();
    const results = {
      find: async (keys: readonly string[]) => {
        const key = keys.find((k) => stored.has(k));
        return key ? { key, ...stored.get(key)! } : undefined;
      },
    };
    const first = recordingEnvironment({ model: scriptedModel(['P', 'R']), results });
    await executeRun(start(definition, { state: { input: 'order 7', requestedAt: 1 } }), first.env);
    for (const e of first.events)
      if (e.type === 'node.completed' && e.data.cacheKey) stored.set(e.data.cacheKey, { output: e.data.output, handle: null });
    expect(stored.size).toBe(2);

    const model = scriptedModel(['R2']);
    const again = recordingEnvironment({ model, results });
    const outcome = await executeRun(start(definition, { state: { input: 'order 7', requestedAt: 2 } }), again.env);
    // `plan` had the same input (requestedAt is volatile): reused. `act` reads the same plan but the
    // state differs in requestedAt, which it does not ignore.
    expect(outcome).toMatchObject({ status: 'completed', output: { plan: 'P', result: 'R2' } });
    expect(model.requests).toHaveLength(1);
    expect(again.events.find((e) => e.type === 'node.completed' && e.nodeId === 'plan')?.data).toMatchObject({
      cachedFrom: expect.any(String),
      output: { plan: 'P' },
    });
  });

  it('a fork starts at its checkpoint frontier with the patched state', async () => {
    const model = scriptedModel(['R-patched']);
    const { env, events } = recordingEnvironment({ model });
    const outcome = await executeRun(start(definition, { state: { input: 'order 7', plan: 'patched plan' }, start: ['act'] }), env);
    expect(outcome).toMatchObject({ status: 'completed', output: { plan: 'patched plan', result: 'R-patched' } });
    expect(events.some((e) => e.nodeId === 'plan')).toBe(false);
    expect(model.requests[0].messages[0]).toEqual({ role: 'user', content: 'act on patched plan' });
  });

  it('hands the run back at the next checkpoint when the runner drains', async () => {
    const drain = new AbortController();
    const model = {
      generate: async () => {
        drain.abort();
        return { text: 'P', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, toolCalls: [] };
      },
    };
    const { env, events } = recordingEnvironment({ model, drain: drain.signal });
    const outcome = await executeRun(start(definition), env);
    expect(outcome).toMatchObject({ status: 'yielded' });
    expect(types(events).slice(-2)).toEqual(['checkpoint.saved:', 'run.yielded:']);
  });
});
