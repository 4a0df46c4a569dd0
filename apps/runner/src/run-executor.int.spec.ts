import { context } from '@opentelemetry/api';
import { connectBus, deleteStreams, EMPTY_LOG, provisionStreams, readRunLog, RunLogWriter, type Bus } from '@spindle/bus';
import type { RunEvent, TokenDelta } from '@spindle/contracts';
import { testEnv, testNamespace } from '@spindle/testing';
import { executeRunCommand, type RunExecutorDeps } from './run-executor';
import { testExecutorDeps } from './runner-test.fixture';
import { Registry } from 'prom-client';
import { StepSlots } from './execution/step-slots';
import { RunnerMetrics } from './runner.metrics';

describe('executeRunCommand on JetStream', () => {
  let bus: Bus;
  let deps: RunExecutorDeps;
  const parent = { attempt: 1, parent: context.active() };

  beforeAll(async () => {
    bus = await connectBus({ url: testEnv().natsUrl, namespace: testNamespace(), name: 'runner-test' });
    await provisionStreams(bus);
    deps = testExecutorDeps(bus, { maxAttempts: 2 });
  });
  afterAll(async () => {
    await deleteStreams(bus);
    await bus.close();
  });

  const queue = async (runId: string, definition: unknown, state: Record<string, unknown> = { input: null }) => {
    const log = new RunLogWriter(bus, runId, EMPTY_LOG);
    await log.write({
      type: 'run.queued',
      spanId: 'root',
      path: 'root',
      data: { workflow: { name: 'w', version: 1 }, input: null, state, definition },
    });
    return log;
  };

  it('runs a queued run to completion from its log, publishing coalesced tokens', async () => {
    const tokens: TokenDelta[] = [];
    const sub = bus.nc.subscribe(bus.names.tokenSubject('run-ok'), { callback: (_, m) => void tokens.push(m.json<TokenDelta>()) });
    await queue(
      'run-ok',
      { kind: 'graph', nodes: [{ id: 'say', type: 'llm', model: 'offline:echo', prompt: 'one two three {{input}}', stream: true }] },
      { input: 'four' },
    );
    const registry = new Registry();
    const metrics = new RunnerMetrics(registry, 1, new StepSlots(1));
    expect(await executeRunCommand({ ...deps, metrics }, 'run-ok', parent, new AbortController().signal)).toBe('done');
    await bus.nc.flush();
    sub.unsubscribe();
    const { events } = await readRunLog(bus, 'run-ok');
    expect(events.map((e) => e.type)).toEqual([
      'run.queued',
      'run.started',
      'node.started',
      'model.started',
      'model.completed',
      'node.completed',
      'checkpoint.saved',
      'run.completed',
    ]);
    expect(events[1]).toMatchObject({ data: { attempt: 1, worker: 'w-test' } });
    expect(tokens.map((t) => t.delta).join('')).toBe('one two three four');
    expect(tokens.length).toBeLessThan(4);
    expect(tokens.every((t) => t.afterSeq === 3)).toBe(true);
    // Each chunk names its call (the seq of its model.started) and its place in that call's stream.
    expect(tokens.map((t) => [t.callSeq, t.callIndex])).toEqual(tokens.map((_, i) => [4, i]));
    // Seven events after run.queued, in fewer messages: the model call waits for the log, the rest ride together.
    const counted = async (name: string) => (await registry.getSingleMetric(name)!.get()).values[0]?.value;
    expect(await counted('spindle_run_log_events_total')).toBe(7);
    expect(await counted('spindle_run_log_messages_total')).toBeLessThan(7);
  });

  it('acknowledges a finished run without touching it again', async () => {
    const before = (await readRunLog(bus, 'run-ok')).events.length;
    expect(await executeRunCommand(deps, 'run-ok', parent, new AbortController().signal)).toBe('done');
    expect((await readRunLog(bus, 'run-ok')).events).toHaveLength(before);
  });

  it('resumes a redelivered run whose runner was lost, and closes it interrupted once its attempts are spent', async () => {
    const log = await queue('run-half', {
      kind: 'graph',
      nodes: [
        { id: 'a', type: 'set', values: { x: 1 } },
        { id: 'b', type: 'set', values: { y: 2 } },
      ],
      edges: [{ from: 'a', to: 'b' }],
    });
    await log.write({ type: 'run.started', spanId: 'root', path: 'root', data: { attempt: 1, worker: 'dead-runner' } });
    await log.write({
      type: 'node.started',
      nodeId: 'a',
      spanId: 'span-a',
      parentSpanId: 'root',
      path: 'root/a',
      data: { nodeType: 'set', input: { x: 1 } },
    });
    // A first delivery of a command for a run mid-execution belongs to whoever holds it.
    expect(await executeRunCommand(deps, 'run-half', parent, new AbortController().signal)).toBe('ignored');
    expect(await executeRunCommand(deps, 'run-half', { ...parent, attempt: 2 }, new AbortController().signal)).toBe('done');
    const { events } = await readRunLog(bus, 'run-half');
    expect(events.slice(3).map((e) => `${e.type}:${e.nodeId ?? ''}`)).toEqual([
      'run.resumed:',
      'node.completed:a',
      'checkpoint.saved:',
      'node.started:b',
      'node.completed:b',
      'checkpoint.saved:',
      'run.completed:',
    ]);
    expect(events[3]).toMatchObject({ data: { reason: 'worker_lost', attempt: 2, worker: 'w-test' } });
    expect(events[4].spanId).toBe('span-a');

    const again = await queue('run-lost-twice', { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }] });
    await again.write({ type: 'run.started', spanId: 'root', path: 'root', data: { attempt: 1, worker: 'dead-1' } });
    await again.write({
      type: 'run.resumed',
      spanId: 'root',
      path: 'root',
      data: { reason: 'worker_lost', attempt: 2, worker: 'dead-2' },
    });
    expect(await executeRunCommand(deps, 'run-lost-twice', { ...parent, attempt: 3 }, new AbortController().signal)).toBe('done');
    expect((await readRunLog(bus, 'run-lost-twice')).events.at(-1)).toMatchObject({
      type: 'run.failed',
      data: { error: { code: 'interrupted' } },
    });
  });

  it('hands a draining run back at its next checkpoint', async () => {
    await queue('run-drained', {
      kind: 'graph',
      nodes: [
        { id: 'wait', type: 'function', function: 'sleep', args: { ms: 200 } },
        { id: 'b', type: 'set', values: { y: 1 } },
      ],
      edges: [{ from: 'wait', to: 'b' }],
    });
    const drain = new AbortController();
    const running = executeRunCommand(deps, 'run-drained', { ...parent, drain: drain.signal }, new AbortController().signal);
    let events: RunEvent[] = [];
    while (!events.some((e) => e.type === 'node.started')) events = (await readRunLog(bus, 'run-drained')).events;
    drain.abort();
    expect(await running).toBe('requeued');
    events = (await readRunLog(bus, 'run-drained')).events;
    expect(events.slice(-3).map((e) => e.type)).toEqual(['node.completed', 'checkpoint.saved', 'run.yielded']);
    // Back in the queue as a fresh command, so a drain never uses up the old one's deliveries.
    const queued = await bus.jsm.streams.getMessage(bus.names.commandsStream, { last_by_subj: bus.names.startCommand });
    expect(queued?.json()).toMatchObject({ type: 'run.resume', runId: 'run-drained', afterSeq: events.at(-1)!.seq });
    // The next runner takes it from there, on the first delivery of the requeued command.
    expect(await executeRunCommand(deps, 'run-drained', { ...parent, attempt: 2 }, new AbortController().signal)).toBe('done');
    events = (await readRunLog(bus, 'run-drained')).events;
    expect(events.filter((e) => e.nodeId === 'wait' && e.type === 'node.started')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'run.completed', data: { output: { y: 1 } } });
    expect(events.find((e) => e.type === 'run.resumed')).toMatchObject({ data: { reason: 'handed_back' } });
  });

  it('stops at once and appends nothing more when another writer owns the run', async () => {
    await queue('run-raced', {
      kind: 'graph',
      nodes: [
        { id: 'wait', type: 'function', function: 'sleep', args: { ms: 300 } },
        { id: 'b', type: 'set', values: { y: 1 } },
      ],
      edges: [{ from: 'wait', to: 'b' }],
    });
    const running = executeRunCommand(deps, 'run-raced', parent, new AbortController().signal);
    let events: RunEvent[] = [];
    while (!events.some((e) => e.type === 'node.started')) events = (await readRunLog(bus, 'run-raced')).events;
    // Another writer appends at the position this runner expects to write next.
    const { position } = await readRunLog(bus, 'run-raced');
    await new RunLogWriter(bus, 'run-raced', position!).write({ type: 'custom', spanId: 'root', path: 'root', data: { by: 'other' } });
    expect(await running).toBe('lost');
    const after = (await readRunLog(bus, 'run-raced')).events;
    expect(after.at(-1)).toMatchObject({ type: 'custom', data: { by: 'other' } });
    expect(after.map((e) => e.seq)).toEqual(after.map((_, i) => i + 1));
  });

  it('fails the run with run_timeout when it outlives its timeout', async () => {
    await queue('run-slow', { kind: 'graph', nodes: [{ id: 'wait', type: 'function', function: 'sleep', args: { ms: 5_000 } }] });
    expect(await executeRunCommand({ ...deps, runTimeoutMs: 200 }, 'run-slow', parent, new AbortController().signal)).toBe('done');
    const { events } = await readRunLog(bus, 'run-slow');
    expect(events.at(-2)).toMatchObject({ type: 'node.failed', nodeId: 'wait', data: { error: { code: 'run_timeout' } } });
    expect(events.at(-1)).toMatchObject({ type: 'run.failed', data: { error: { code: 'run_timeout', nodeId: 'wait' } } });
  });

  it('keeps a large input once: checkpoints record what changed, so 20 steps do not copy it 20 times', async () => {
    const input = { document: 'x'.repeat(900 * 1024) };
    const nodes = Array.from({ length: 20 }, (_, i) => ({ id: `step_${i}`, type: 'set', values: { [`done_${i}`]: i } }));
    const edges = nodes.slice(1).map((n, i) => ({ from: nodes[i].id, to: n.id }));
    await queue('run-large', { kind: 'graph', nodes, edges }, { input });
    expect(await executeRunCommand(deps, 'run-large', parent, new AbortController().signal)).toBe('done');
    const { events, position } = await readRunLog(bus, 'run-large');
    expect(events.at(-1)).toMatchObject({ type: 'run.completed' });
    // run.queued and run.completed hold the input once each; nothing else repeats it.
    expect(position!.bytes).toBeLessThan(3 * 900 * 1024);
    const checkpoints = events.filter((e) => e.type === 'checkpoint.saved');
    expect(checkpoints).toHaveLength(20);
    expect(checkpoints.every((e) => JSON.stringify(e.data).length < 500)).toBe(true);
  });

  it('fails a run whose log would outgrow its limit with run_log_limit_exceeded, recorded in the log', async () => {
    const nodes = Array.from({ length: 10 }, (_, i) => ({ id: `grow_${i}`, type: 'set', values: { [`chunk_${i}`]: 'y'.repeat(4_000) } }));
    const edges = nodes.slice(1).map((n, i) => ({ from: nodes[i].id, to: n.id }));
    await queue('run-outgrown', { kind: 'graph', nodes, edges });
    expect(await executeRunCommand({ ...deps, maxLogBytes: 60_000 }, 'run-outgrown', parent, new AbortController().signal)).toBe('done');
    const { events } = await readRunLog(bus, 'run-outgrown');
    expect(events.at(-1)).toMatchObject({ type: 'run.failed', data: { error: { code: 'run_log_limit_exceeded' } } });
    expect(events.at(-2)).toMatchObject({ type: 'node.failed', data: { error: { code: 'run_log_limit_exceeded' } } });
    expect(events.filter((e) => e.type === 'node.completed').length).toBeGreaterThan(0);

    // A log already at its limit when the run starts fails at once, typed.
    await queue('run-born-full', { kind: 'graph', nodes });
    expect(await executeRunCommand({ ...deps, maxLogBytes: 20_000 }, 'run-born-full', parent, new AbortController().signal)).toBe('done');
    expect((await readRunLog(bus, 'run-born-full')).events.map((e) => e.type)).toEqual(['run.queued', 'run.failed']);
  });
});
