import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context } from '@opentelemetry/api';
import { connectBus, deleteStreams, EMPTY_LOG, provisionStreams, readRunLog, RunLogWriter, type Bus } from '@spindle/bus';
import type { RunEvent } from '@spindle/contracts';
import { testEnv, testNamespace } from '@spindle/testing';
import { loadPlugins } from './plugins/plugin-loader';
import { executeRunCommand, type RunExecutorDeps } from './run-executor';
import { testExecutorDeps } from './runner-test.fixture';

/** A plugin written against @spindle/plugin: it fails its first try, then emits and reports what it spent. */
const pluginSource = `
const { defineFunction, definePlugin, PublicError } = require('@spindle/plugin');
module.exports = definePlugin({
  name: 'orders',
  version: '1.0.0',
  functions: {
    lookup_order: defineFunction({
      retry: { attempts: 2, backoffMs: 1 },
      run: async (args, ctx) => {
        if (ctx.attempt === 1) throw new PublicError('order service busy');
        ctx.emit('order.looked_up', { orderId: args.orderId, apiKey: 'k-secret' });
        await ctx.reportUsage({ costUsd: 0.3, units: { lookups: 1 }, label: 'order API' });
        return { status: 'shipped' };
      },
    }),
    after: () => ({ after: true }),
  },
});
`;

describe('what plugin code says, in a run on JetStream', () => {
  let bus: Bus;
  let deps: RunExecutorDeps;
  const parent = { attempt: 1, parent: context.active() };

  beforeAll(async () => {
    bus = await connectBus({ url: testEnv().natsUrl, namespace: testNamespace(), name: 'runner-voice-test' });
    await provisionStreams(bus);
    const path = join(mkdtempSync(join(tmpdir(), 'spindle-voice-')), 'orders.js');
    writeFileSync(path, pluginSource);
    deps = testExecutorDeps(bus, loadPlugins([path]));
  });
  afterAll(async () => {
    await deleteStreams(bus);
    await bus.close();
  });

  const runOf = async (runId: string, budget?: Record<string, number>) => {
    const definition = {
      kind: 'graph',
      secrets: ['apiKey'],
      ...(budget ? { budget } : {}),
      nodes: [
        { id: 'lookup', type: 'function', function: 'lookup_order', args: { orderId: '{{input}}' } },
        { id: 'after', type: 'function', function: 'after' },
      ],
      edges: [{ from: 'lookup', to: 'after' }],
    };
    await new RunLogWriter(bus, runId, EMPTY_LOG).write({
      type: 'run.queued',
      spanId: 'root',
      path: 'root',
      data: { workflow: { name: 'w', version: 1 }, input: '42', state: { input: '42' }, definition },
    });
    expect(await executeRunCommand(deps, runId, parent, new AbortController().signal)).toBe('done');
    return (await readRunLog(bus, runId)).events;
  };

  it('lands the failed try, the custom event and the reported cost under the node, in order, masked', async () => {
    const events = await runOf('run-voice');
    const node = events.find((e) => e.type === 'node.started' && e.nodeId === 'lookup')!;
    expect(events.filter((e) => e.nodeId === 'lookup').map((e) => e.type)).toEqual([
      'node.started',
      'attempt.failed',
      'custom',
      'usage.reported',
      'node.completed',
    ]);
    const byType = <T extends RunEvent['type']>(type: T) => events.find((e) => e.type === type) as Extract<RunEvent, { type: T }>;
    for (const type of ['attempt.failed', 'custom', 'usage.reported'] as const) expect(byType(type).parentSpanId).toBe(node.spanId);
    expect(byType('attempt.failed').data).toEqual({
      kind: 'function',
      name: 'lookup_order',
      attempt: 1,
      error: { code: 'function_failed', message: 'order service busy' },
      retryInMs: 1,
    });
    expect(byType('custom').data).toEqual({ name: 'order.looked_up', data: { orderId: '42', apiKey: '[masked]' } });
    expect(byType('usage.reported').data).toMatchObject({
      usage: { costUsd: 0.3 },
      units: { lookups: 1 },
      label: 'order API',
      source: { kind: 'function', name: 'lookup_order' },
      runUsage: { costUsd: 0.3 },
    });
    expect(events.at(-1)).toMatchObject({ type: 'run.completed', data: { usage: { costUsd: 0.3 } } });
  });

  it('stops the run with run_budget_exceeded before its next node when the reported cost breaches maxTotalCost', async () => {
    const events = await runOf('run-over-budget', { maxTotalCost: 0.25 });
    expect(events.some((e) => e.type === 'node.started' && e.nodeId === 'after')).toBe(false);
    expect(events.at(-1)).toMatchObject({
      type: 'run.failed',
      data: { error: { code: 'run_budget_exceeded', nodeId: 'after' }, usage: { costUsd: 0.3 } },
    });
  });
});
