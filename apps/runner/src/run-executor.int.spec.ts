import { context, trace } from '@opentelemetry/api';
import { connectBus, deleteStreams, EMPTY_LOG, provisionStreams, readRunLog, RunLogWriter, type Bus } from '@spindle/bus';
import type { RunEvent, TokenDelta } from '@spindle/contracts';
import { createModelPort } from '@spindle/llm';
import { createLogger } from '@spindle/telemetry';
import { testEnv, testNamespace } from '@spindle/testing';
import { mcpPolicyFrom } from './mcp/mcp-policy';
import { loadPlugins } from './plugins/plugin-loader';
import { executeStartCommand, type RunExecutorDeps } from './run-executor';

describe('executeStartCommand on JetStream', () => {
  let bus: Bus;
  let deps: RunExecutorDeps;
  const parent = { attempt: 1, parent: context.active() };

  beforeAll(async () => {
    bus = await connectBus({ url: testEnv().natsUrl, namespace: testNamespace(), name: 'runner-test' });
    await provisionStreams(bus);
    deps = {
      bus,
      model: createModelPort({}),
      ...loadPlugins([]),
      tracer: trace.getTracer('test'),
      logger: createLogger('runner-test', { level: 'fatal' }),
      workerId: 'w-test',
      runTimeoutMs: 60_000,
      runTimeoutCeilingMs: 120_000,
      maxSteps: 100,
      mcpPolicy: mcpPolicyFrom(''),
    };
  });
  afterAll(async () => {
    await deleteStreams(bus);
    await bus.close();
  });

  const queue = async (runId: string, definition: unknown, state: Record<string, unknown> = { input: null }) => {
    const log = new RunLogWriter(bus, runId, EMPTY_LOG);
    await log.append({ type: 'run.queued', spanId: 'root', path: 'root', data: { workflow: { name: 'w', version: 1 }, input: null, state, definition } });
    return log;
  };

  it('runs a queued run to completion from its log, publishing coalesced tokens', async () => {
    const tokens: TokenDelta[] = [];
    const sub = bus.nc.subscribe(bus.names.tokenSubject('run-ok'), { callback: (_, m) => void tokens.push(m.json<TokenDelta>()) });
    await queue('run-ok', { kind: 'graph', nodes: [{ id: 'say', type: 'llm', model: 'offline:echo', prompt: 'one two three {{input}}', stream: true }] }, { input: 'four' });
    expect(await executeStartCommand(deps, 'run-ok', parent, new AbortController().signal)).toBe('done');
    await bus.nc.flush();
    sub.unsubscribe();
    const { events } = await readRunLog(bus, 'run-ok');
    expect(events.map((e) => e.type)).toEqual(['run.queued', 'run.started', 'node.started', 'model.started', 'model.completed', 'node.completed', 'run.completed']);
    expect(events[1]).toMatchObject({ data: { attempt: 1, worker: 'w-test' } });
    expect(tokens.map((t) => t.delta).join('')).toBe('one two three four');
    expect(tokens.length).toBeLessThan(4);
    expect(tokens.every((t) => t.afterSeq === 3)).toBe(true);
  });

  it('acknowledges a finished run without touching it again', async () => {
    const before = (await readRunLog(bus, 'run-ok')).events.length;
    expect(await executeStartCommand(deps, 'run-ok', parent, new AbortController().signal)).toBe('done');
    expect((await readRunLog(bus, 'run-ok')).events).toHaveLength(before);
  });

  it('closes a redelivered run that had already started as interrupted', async () => {
    const log = await queue('run-half', { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }] });
    await log.append({ type: 'run.started', spanId: 'root', path: 'root', data: { attempt: 1, worker: 'dead-runner' } });
    expect(await executeStartCommand(deps, 'run-half', { ...parent, attempt: 2 }, new AbortController().signal)).toBe('done');
    const { events } = await readRunLog(bus, 'run-half');
    expect(events.at(-1)).toMatchObject({ type: 'run.failed', data: { error: { code: 'interrupted' } } });
  });

  it('stops at once and appends nothing more when another writer owns the run', async () => {
    await queue('run-raced', { kind: 'graph', nodes: [{ id: 'wait', type: 'function', function: 'sleep', args: { ms: 300 } }, { id: 'b', type: 'set', values: { y: 1 } }], edges: [{ from: 'wait', to: 'b' }] });
    const running = executeStartCommand(deps, 'run-raced', parent, new AbortController().signal);
    let events: RunEvent[] = [];
    while (!events.some((e) => e.type === 'node.started')) events = (await readRunLog(bus, 'run-raced')).events;
    // Another writer appends at the position this runner expects to write next.
    const { position } = await readRunLog(bus, 'run-raced');
    await new RunLogWriter(bus, 'run-raced', position!).append({ type: 'custom', spanId: 'root', path: 'root', data: { by: 'other' } });
    expect(await running).toBe('lost');
    const after = (await readRunLog(bus, 'run-raced')).events;
    expect(after.at(-1)).toMatchObject({ type: 'custom', data: { by: 'other' } });
    expect(after.map((e) => e.seq)).toEqual(after.map((_, i) => i + 1));
  });

  it('fails the run with run_timeout when it outlives its timeout', async () => {
    await queue('run-slow', { kind: 'graph', nodes: [{ id: 'wait', type: 'function', function: 'sleep', args: { ms: 5_000 } }] });
    expect(await executeStartCommand({ ...deps, runTimeoutMs: 200 }, 'run-slow', parent, new AbortController().signal)).toBe('done');
    const { events } = await readRunLog(bus, 'run-slow');
    expect(events.at(-2)).toMatchObject({ type: 'node.failed', nodeId: 'wait', data: { error: { code: 'run_timeout' } } });
    expect(events.at(-1)).toMatchObject({ type: 'run.failed', data: { error: { code: 'run_timeout', nodeId: 'wait' } } });
  });
});
