import { MAX_CUSTOM_EVENT_BYTES, PublicError, type RunEvent } from '@spindle/contracts';
import { validateDefinition } from '../definition/validate-definition';
import { executeRun } from '../interpreter/execute-run';
import type { RegisteredFunction } from '../ports';
import { recordingEnvironment, scriptedModel, toolCalls } from '../testing/in-process-ports';
import { checkCustomEvent, checkUsageReport } from './user-code-reports';

const run = (definition: unknown, env: ReturnType<typeof recordingEnvironment>['env']) =>
  executeRun({ definition: validateDefinition(definition), state: { input: 'x' }, attempt: 1, worker: 'w' }, env);

const twoFunctions = (budget?: Record<string, number>) => ({
  kind: 'graph',
  ...(budget ? { budget } : {}),
  nodes: [
    { id: 'lookup', type: 'function', function: 'lookup' },
    { id: 'after', type: 'function', function: 'after' },
  ],
  edges: [{ from: 'lookup', to: 'after' }],
});

const of = <T extends RunEvent['type']>(events: RunEvent[], type: T) =>
  events.filter((e) => e.type === type) as Extract<RunEvent, { type: T }>[];

describe('what user code says into the log', () => {
  it('records emits and reported usage under the function node, before its end, and counts the cost in the run', async () => {
    const lookup: RegisteredFunction = async (ctx) => {
      void ctx.emit('order.looked_up', { orderId: 42 });
      await ctx.reportUsage({ costUsd: 0.25, units: { lookups: 1 }, label: 'order API' });
      return { found: true };
    };
    const { env, events } = recordingEnvironment({ functions: { lookup, after: () => ({}) } });
    const outcome = await run(twoFunctions(), env);
    expect(outcome.status).toBe('completed');
    const node = events.find((e) => e.type === 'node.started' && e.nodeId === 'lookup')!;
    const types = events.filter((e) => e.nodeId === 'lookup').map((e) => e.type);
    expect(types).toEqual(['node.started', 'custom', 'usage.reported', 'node.completed']);
    const [custom] = of(events, 'custom');
    expect(custom).toMatchObject({ parentSpanId: node.spanId, data: { name: 'order.looked_up', data: { orderId: 42 } } });
    expect(custom.spanId).not.toBe(node.spanId);
    const [reported] = of(events, 'usage.reported');
    expect(reported).toMatchObject({
      parentSpanId: node.spanId,
      data: {
        usage: { costUsd: 0.25, totalTokens: 0 },
        units: { lookups: 1 },
        label: 'order API',
        source: { kind: 'function', name: 'lookup' },
        runUsage: { costUsd: 0.25 },
      },
    });
    expect(events.at(-1)).toMatchObject({ type: 'run.completed', data: { usage: { costUsd: 0.25 } } });
  });

  it('stops the run with run_budget_exceeded before the next node when reported cost breaches maxTotalCost', async () => {
    const after = jest.fn(() => ({}));
    const lookup: RegisteredFunction = async (ctx) => {
      await ctx.reportUsage({ costUsd: 0.5 });
    };
    const { env, events } = recordingEnvironment({ functions: { lookup, after } });
    const outcome = await run(twoFunctions({ maxTotalCost: 0.4 }), env);
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'run_budget_exceeded', nodeId: 'after' } });
    expect(after).not.toHaveBeenCalled();
    expect(events.some((e) => e.type === 'node.started' && e.nodeId === 'after')).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'run.failed', data: { usage: { costUsd: 0.5 } } });
  });

  it('a reported cost adds to the model calls’ cost, and a report without a cost is no unpriced call', async () => {
    const lookup: RegisteredFunction = async (ctx) => {
      await ctx.reportUsage({ costUsd: 0.1 });
      await ctx.reportUsage({ units: { pages: 3 } });
    };
    const { env, events } = recordingEnvironment({ functions: { lookup, after: () => ({}) } });
    await run(twoFunctions(), env);
    expect(of(events, 'usage.reported').map((e) => e.data.runUsage)).toEqual([
      { inputTokens: 0, outputTokens: 0, totalTokens: 0, costUsd: 0.1 },
      { inputTokens: 0, outputTokens: 0, totalTokens: 0, costUsd: 0.1 },
    ]);
  });

  it('a resumed run continues the ledger from the reported usage in its log and does not run the function again', async () => {
    const lookup = jest.fn<ReturnType<RegisteredFunction>, Parameters<RegisteredFunction>>(async (ctx) => {
      await ctx.reportUsage({ costUsd: 0.3 });
      return { found: true };
    });
    const first = recordingEnvironment({
      functions: { lookup, after: () => ({}) },
    });
    await run(
      {
        kind: 'graph',
        nodes: [
          { id: 'lookup', type: 'function', function: 'lookup' },
          { id: 'ask', type: 'human', prompt: 'ok?', output_key: 'ok' },
        ],
        edges: [{ from: 'lookup', to: 'ask' }],
      },
      first.env,
    );
    expect(first.events.at(-1)).toMatchObject({ type: 'run.awaiting' });
    const prior = [...first.events];
    const requestId = (prior.find((e) => e.type === 'input.requested') as Extract<RunEvent, { type: 'input.requested' }>).data.requestId;
    prior.push({
      ...prior.at(-1)!,
      type: 'input.answered',
      seq: prior.length + 1,
      data: { requestId, answer: 'yes', answeredBy: { kind: 'anonymous' } },
    } as unknown as RunEvent);
    const resumed = recordingEnvironment({ prior, functions: { lookup, after: () => ({}) } });
    const outcome = await executeRun(
      {
        definition: validateDefinition({
          kind: 'graph',
          budget: { maxTotalCost: 1 },
          nodes: [
            { id: 'lookup', type: 'function', function: 'lookup' },
            { id: 'ask', type: 'human', prompt: 'ok?', output_key: 'ok' },
          ],
          edges: [{ from: 'lookup', to: 'ask' }],
        }),
        state: { input: 'x' },
        attempt: 1,
        worker: 'w',
        resume: { reason: 'answered' },
      },
      resumed.env,
    );
    expect(outcome.status).toBe('completed');
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(resumed.events.at(-1)).toMatchObject({ type: 'run.completed', data: { usage: { costUsd: 0.3 } } });
  });

  it('records a failed attempt with its error redacted unless public, and refuses a voice after the function returned', async () => {
    let late: Parameters<RegisteredFunction>[0] | undefined;
    const lookup: RegisteredFunction = async (ctx) => {
      late = ctx;
      await ctx.attemptFailed({ attempt: 1, error: new Error('db password is hunter2'), retryInMs: 100 });
      await ctx.attemptFailed({ attempt: 2, error: new PublicError('order service busy'), retryInMs: 200 });
    };
    const { env, events, redacted } = recordingEnvironment({ functions: { lookup, after: () => ({}) } });
    await run(twoFunctions(), env);
    const attempts = of(events, 'attempt.failed');
    expect(attempts.map((e) => e.data)).toEqual([
      {
        kind: 'function',
        name: 'lookup',
        attempt: 1,
        error: { code: 'function_failed', message: 'Error (correlation id corr-1)', correlationId: 'corr-1' },
        retryInMs: 100,
      },
      { kind: 'function', name: 'lookup', attempt: 2, error: { code: 'function_failed', message: 'order service busy' }, retryInMs: 200 },
    ]);
    expect(JSON.stringify(events)).not.toContain('hunter2');
    expect(redacted).toHaveLength(1);
    expect(() => late!.emit('too.late', {})).toThrow(/after function "lookup" returned/);
  });

  it('hangs a tool’s events under the tool call’s span, naming the call', async () => {
    const model = scriptedModel([toolCalls({ id: 'c1', name: 'lookup_order', arguments: { id: 1 } }), 'done']);
    const { env, events } = recordingEnvironment({
      model,
      tools: {
        lookup_order: async (_args, _signal, ctx) => {
          await ctx.emit('order.looked_up', { id: 1 });
          await ctx.reportUsage({ costUsd: 0.01 });
          return { status: 'shipped' };
        },
      },
    });
    await run(
      {
        kind: 'graph',
        nodes: [
          { id: 'support', type: 'agent', model: 'compatible:m', instructions: 'help', tools: ['lookup_order'], output_key: 'answer' },
        ],
      },
      env,
    );
    const called = events.find((e) => e.type === 'tool.called')!;
    const types = events.filter((e) => e.parentSpanId === called.spanId).map((e) => e.type);
    expect(types).toEqual(['custom', 'usage.reported']);
    expect(of(events, 'usage.reported')[0].data.source).toEqual({ kind: 'tool', name: 'lookup_order', callId: 'c1' });
    const returned = events.findIndex((e) => e.type === 'tool.returned');
    expect(events.findIndex((e) => e.type === 'usage.reported')).toBeLessThan(returned);
  });

  it('fails the node with a stable code when user code emits something the log cannot hold', async () => {
    const lookup: RegisteredFunction = async (ctx) => {
      await ctx.emit('big', { blob: 'x'.repeat(MAX_CUSTOM_EVENT_BYTES) });
    };
    const { env } = recordingEnvironment({ functions: { lookup, after: () => ({}) } });
    const outcome = await run(twoFunctions(), env);
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'payload_too_large', nodeId: 'lookup' } });
  });
});

describe('checkCustomEvent', () => {
  it('takes a dotted name and JSON data', () => {
    expect(checkCustomEvent('order.looked_up', { id: 1, tags: ['a'], nested: { ok: true } })).toEqual({
      name: 'order.looked_up',
      data: { id: 1, tags: ['a'], nested: { ok: true } },
    });
    expect(checkCustomEvent('ping', undefined)).toEqual({ name: 'ping', data: null });
  });

  it.each([
    ['', {}, /event name "" /],
    ['1st', {}, /must start with a letter/],
    ['has space', {}, /must start with a letter/],
    [42, {}, /event name 42/],
    ['fn', { f: () => 1 }, /data\.f is not JSON/],
    ['nan', { n: [NaN] }, /data\.n\[0\] is not JSON/],
    ['date', { at: new Date(0) }, /data\.at is not JSON/],
    ['map', new Map(), /data is not JSON/],
  ])('refuses %p %p with validation_failed', (name, data, message) => {
    expect(() => checkCustomEvent(name, data)).toThrow(
      expect.objectContaining({ code: 'validation_failed', message: expect.stringMatching(message) }),
    );
  });

  it('refuses data larger than MAX_CUSTOM_EVENT_BYTES as canonical JSON with payload_too_large', () => {
    const fits = 'x'.repeat(MAX_CUSTOM_EVENT_BYTES - 2);
    expect(checkCustomEvent('fits', fits).data).toBe(fits);
    expect(() => checkCustomEvent('big', fits + 'x')).toThrow(expect.objectContaining({ code: 'payload_too_large' }));
  });
});

describe('checkUsageReport', () => {
  it('turns a report into the log’s usage, units without a prototype', () => {
    const checked = checkUsageReport({ costUsd: 0.002, inputTokens: 10, outputTokens: 5, units: { pages: 2 }, label: 'ocr' });
    expect(checked).toEqual({
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15, costUsd: 0.002 },
      units: Object.assign(Object.create(null), { pages: 2 }),
      label: 'ocr',
    });
    expect(Object.getPrototypeOf(checked.units)).toBeNull();
    expect(checkUsageReport({ units: new Map([['__proto__', 1]]) }).units?.['__proto__']).toBe(1);
  });

  it.each([
    [null, /must be an object/],
    [{}, /reports nothing/],
    [{ costUsd: -1 }, /"costUsd" must be a number from 0/],
    [{ costUsd: Infinity }, /"costUsd"/],
    [{ costUsd: '1' }, /"costUsd"/],
    [{ inputTokens: 1.5 }, /"inputTokens" must be a whole number/],
    [{ units: { pages: -2 } }, /"units.pages"/],
    [{ units: [1] }, /"units" must be an object or a Map/],
    [{ units: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`u${i}`, 1])) }, /at most 32/],
    [{ units: { ['x'.repeat(65)]: 1 } }, /a unit's name/],
    [{ costUsd: 1, label: 'x'.repeat(201) }, /"label"/],
    [{ costUsd: 1, dollars: 2 }, /unknown key\(s\) "dollars"/],
  ])('refuses %p', (report, message) => {
    expect(() => checkUsageReport(report)).toThrow(
      expect.objectContaining({ code: 'validation_failed', message: expect.stringMatching(message) }),
    );
  });
});
