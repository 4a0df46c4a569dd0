import type { RunEvent, RunSummary, RunTrace } from '@spindle/contracts';
import { startStack, type Stack } from '@spindle/testing';
import { saveAndStream } from './hello-runs';

/**
 * A plugin written against @spindle/plugin speaks into the run: its custom event, its reported cost
 * and its failed tries are in the log, in the trace (each on its node's span), in the cost totals,
 * and in the budget check before the next node.
 */
describe('a plugin written against @spindle/plugin, end to end', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ runnerEnv: { SPINDLE_PLUGINS: 'e2e/fixtures/plugins/paid-lookup.js' } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const runToEnd = (name: string, definition: unknown) => saveAndStream(stack, name, definition, { orderId: 'A-7' });
  const lookupThen = (next: Record<string, unknown>, budget?: Record<string, number>) => ({
    kind: 'graph',
    ...(budget ? { budget } : {}),
    nodes: [{ id: 'lookup', type: 'function', function: 'paid_lookup', args: { orderId: '{{input.orderId}}' } }, next],
    edges: [{ from: 'lookup', to: next.id }],
  });

  it('records the custom event, the reported cost and the failed tries in the log, the trace and the cost totals', async () => {
    const events = await runToEnd('paid', lookupThen({ id: 'fetch', type: 'function', function: 'flaky_fetch' }));
    expect(events.at(-1)).toMatchObject({
      type: 'run.completed',
      data: { output: { order: { id: 'A-7', status: 'shipped' }, fetched: 3 }, usage: { costUsd: 0.3 } },
    });
    const runId = events[0].runId;
    const nodeSpan = (nodeId: string) => events.find((e) => e.type === 'node.started' && e.nodeId === nodeId)!.spanId;

    // The log: each under its node's span, before the node's end.
    expect(events.filter((e) => e.nodeId === 'lookup').map((e) => e.type)).toEqual([
      'node.started',
      'usage.reported',
      'custom',
      'node.completed',
    ]);
    expect(events.filter((e) => e.nodeId === 'fetch').map((e) => e.type)).toEqual([
      'node.started',
      'attempt.failed',
      'attempt.failed',
      'node.completed',
    ]);
    const custom = events.find((e) => e.type === 'custom');
    expect(custom).toMatchObject({ parentSpanId: nodeSpan('lookup'), data: { name: 'order.looked_up', data: { orderId: 'A-7' } } });
    const attempts = events.filter((e): e is Extract<RunEvent, { type: 'attempt.failed' }> => e.type === 'attempt.failed');
    expect(attempts.map((e) => e.data)).toEqual([
      {
        kind: 'function',
        name: 'flaky_fetch',
        attempt: 1,
        // Redacted like a node's error: the address in the message never reaches the log.
        error: {
          code: 'function_failed',
          message: expect.stringMatching(/^Error \(correlation id .+\)$/),
          correlationId: expect.any(String),
        },
        retryInMs: 20,
      },
      {
        kind: 'function',
        name: 'flaky_fetch',
        attempt: 2,
        error: { code: 'function_failed', message: 'upstream busy, try again' },
        retryInMs: 40,
      },
    ]);
    expect(JSON.stringify(events)).not.toContain('10.0.0.7');

    // The trace: instants on their node's span, the cost in the node's roll-up and the run's totals.
    const trace = (await (await stack.api(`/v1/runs/${runId}/trace`)).json()) as RunTrace;
    const spansOf = (kind: string) => trace.spans.filter((s) => s.kind === kind);
    expect(spansOf('custom')).toEqual([
      expect.objectContaining({
        parentSpanId: nodeSpan('lookup'),
        nodeType: 'order.looked_up',
        output: { orderId: 'A-7', via: 'paid API' },
      }),
    ]);
    expect(spansOf('usage')).toEqual([
      expect.objectContaining({
        parentSpanId: nodeSpan('lookup'),
        nodeType: 'paid_lookup',
        usage: expect.objectContaining({ costUsd: 0.3 }),
        input: { source: { kind: 'function', name: 'paid_lookup' }, label: 'paid order API', units: { lookups: 1 } },
      }),
    ]);
    expect(spansOf('attempt').map((s) => [s.parentSpanId, s.status, s.error?.code])).toEqual([
      [nodeSpan('fetch'), 'failed', 'function_failed'],
      [nodeSpan('fetch'), 'failed', 'function_failed'],
    ]);
    expect(trace.rollups.byNode.lookup).toMatchObject({ calls: 0, costUsd: 0.3 });
    expect(trace.run.usage.costUsd).toBe(0.3);
    const summary = (await (await stack.api(`/v1/runs/${runId}`)).json()) as RunSummary;
    expect(summary.usage.costUsd).toBe(0.3);
  });

  it('fails a run whose reported cost breaches budget.maxTotalCost with run_budget_exceeded, before its next node', async () => {
    const events = await runToEnd(
      'paid-over-budget',
      lookupThen({ id: 'after', type: 'set', values: { never: true } }, { maxTotalCost: 0.25 }),
    );
    expect(events.some((e) => e.type === 'node.started' && e.nodeId === 'after')).toBe(false);
    expect(events.at(-1)).toMatchObject({
      type: 'run.failed',
      data: { error: { code: 'run_budget_exceeded', nodeId: 'after' }, usage: { costUsd: 0.3 } },
    });
    const summary = (await (await stack.api(`/v1/runs/${events[0].runId}`)).json()) as RunSummary;
    expect(summary).toMatchObject({ status: 'failed', error: { code: 'run_budget_exceeded' }, usage: { costUsd: 0.3 } });
  });
});
