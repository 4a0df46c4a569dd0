import { trace } from '@opentelemetry/api';
import { headers as natsHeaders } from '@nats-io/transport-node';
import {
  connectBus,
  deleteStreams,
  EMPTY_LOG,
  ensureDurable,
  provisionStreams,
  publishRunCommand,
  readRunLog,
  RunLogWriter,
  type Bus,
} from '@spindle/bus';
import type { ReadinessCheck } from '@spindle/service-kit';
import { createLogger } from '@spindle/telemetry';
import { eventually, metricValue, testEnv, testNamespace } from '@spindle/testing';
import { MaxDeliveriesWatcher } from './max-deliveries.watcher';
import { RunnerMetrics } from './runner.metrics';
import { StepSlots } from './execution/step-slots';
import { Registry } from 'prom-client';
import { RunCommandsConsumer } from './run-commands.consumer';
import type { RunExecutorDeps } from './run-executor';
import { parseRunnerConfig } from './runner.config';
import { testExecutorDeps } from './runner-test.fixture';

interface DeadLetter {
  reason: string;
  body: string;
}

/** Issue 9: commands that can never succeed go to the dead-letter stream with their reason, once. */
describe('poison run commands', () => {
  const namespace = testNamespace();
  let bus: Bus;
  const logger = createLogger('runner-test', { level: 'fatal' });
  const config = parseRunnerConfig({
    NATS_URL: testEnv().natsUrl,
    SPINDLE_NAMESPACE: namespace,
    RUNNER_MAX_DELIVER: '3',
    RUNNER_ACK_WAIT_MS: '1000',
    RUNNER_CONCURRENCY: '4',
  });
  let deps: RunExecutorDeps;
  const registry = new Registry();
  const deadLettered = async (kind: string) => metricValue(await registry.metrics(), 'spindle_runner_dead_letters_total', { kind });
  let consumer: RunCommandsConsumer | undefined;

  beforeAll(async () => {
    bus = await connectBus({ url: testEnv().natsUrl, namespace, name: 'poison-test' });
    await provisionStreams(bus);
    deps = { ...testExecutorDeps(bus, { logger, workerId: 'w-poison' }), metrics: new RunnerMetrics(registry, 4, new StepSlots(4)) };
  });
  // A test that fails with its consumer running must not leave it to take the next test's commands.
  afterEach(() => stopConsumer());
  afterAll(async () => {
    await consumer?.onApplicationShutdown();
    await deleteStreams(bus);
    await bus.close();
  });

  const startConsumer = (overrides: Partial<RunExecutorDeps> = {}) => {
    consumer = new RunCommandsConsumer(bus, logger, config, { ...deps, ...overrides }, [] as ReadinessCheck[]);
    consumer.onApplicationBootstrap();
  };
  const stopConsumer = async () => {
    await consumer?.onApplicationShutdown();
    consumer = undefined;
  };
  const deadLetters = async (): Promise<DeadLetter[]> => {
    const info = await bus.jsm.streams.info(bus.names.deadLetterStream);
    const letters: DeadLetter[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
      const m = await bus.jsm.streams.getMessage(bus.names.deadLetterStream, { seq }).catch(() => null);
      if (m) letters.push({ reason: m.header.get('Spindle-Dlq-Reason'), body: Buffer.from(m.data).toString('utf8') });
    }
    return letters;
  };
  const queueRun = (runId: string, definition: unknown) =>
    new RunLogWriter(bus, runId, EMPTY_LOG).write({
      type: 'run.queued',
      spanId: 'root',
      path: 'root',
      data: { workflow: { name: 'w', version: 1 }, input: null, state: {}, definition },
    });
  const commandsLeft = async () => (await bus.jsm.streams.info(bus.names.commandsStream)).state.messages;

  it('dead-letters a command that is not JSON, one naming a wildcard run id, and one for a run whose log is garbage', async () => {
    startConsumer();
    await bus.js.publish(bus.names.startCommand, 'this is not json', { headers: natsHeaders() });
    await bus.js.publish(bus.names.startCommand, JSON.stringify({ type: 'run.start', runId: '*', issuedAt: new Date().toISOString() }));
    await bus.js.publish(bus.names.eventSubject('run-garbage'), '{"not": "an event"');
    await publishRunCommand(bus, { type: 'run.start', runId: 'run-garbage', issuedAt: new Date().toISOString() });

    const letters = await eventually(async () => {
      const found = await deadLetters();
      if (found.length < 3) throw new Error(`${found.length} dead letters so far`);
      return found;
    }, 200);
    expect(letters.map((l) => l.reason)).toEqual([
      'not JSON',
      expect.stringContaining('runId: not a run id'),
      'the log of run run-garbage has no run.queued event at seq 1',
    ]);
    expect(letters[0].body).toBe('this is not json');
    expect(await deadLettered('invalid_command')).toBe(2);
    expect(await deadLettered('unrunnable')).toBe(1);
    await eventually(async () => expect(await commandsLeft()).toBe(0), 100);
    await stopConsumer();
  });

  it('fails a run whose log holds a definition that is not a valid workflow, with a typed error', async () => {
    startConsumer();
    await queueRun('run-bad-definition', { kind: 'graph', nodes: [{ id: 'a', type: 'teleport' }] });
    await publishRunCommand(bus, { type: 'run.start', runId: 'run-bad-definition', issuedAt: new Date().toISOString() });
    const last = await eventually(async () => {
      const event = (await readRunLog(bus, 'run-bad-definition')).events.at(-1);
      if (event?.type !== 'run.failed') throw new Error('not failed yet');
      return event;
    }, 200);
    expect(last).toMatchObject({ seq: 2, data: { error: { code: 'invalid_definition' } } });
    await eventually(async () => expect(await commandsLeft()).toBe(0), 100);
    await stopConsumer();
  });

  it('retries a command whose execution keeps failing a bounded number of times, then dead-letters it', async () => {
    await queueRun('run-cursed', { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }] });
    const cursed = {
      ...trace.getTracer('test'),
      startSpan: () => {
        throw new Error('the tracer is broken');
      },
    };
    startConsumer({ tracer: cursed as never });
    const before = (await deadLetters()).length;
    await publishRunCommand(bus, { type: 'run.start', runId: 'run-cursed', issuedAt: new Date().toISOString() });
    const letter = await eventually(async () => {
      const found = (await deadLetters()).slice(before);
      if (found.length === 0) throw new Error('not dead-lettered yet');
      return found[0];
      // Two retry delays (1 s, 2 s) and three executions: bounded well above that on a loaded machine.
    }, 600);
    expect(letter.reason).toBe('failed at delivery 3: the tracer is broken');
    expect(await deadLettered('retries_exhausted')).toBe(1);
    // The run does not sit queued for ever: it is closed, saying where its command went.
    expect((await readRunLog(bus, 'run-cursed')).events.at(-1)).toMatchObject({
      type: 'run.failed',
      data: { error: { code: 'internal', message: expect.stringContaining('dead-letter stream') } },
    });
    await eventually(async () => expect(await commandsLeft()).toBe(0), 100);
    await stopConsumer();
  });

  it('dead-letters a command whose runner died during its last delivery', async () => {
    const watcher = new MaxDeliveriesWatcher(bus, logger, deps);
    watcher.onApplicationBootstrap();
    await queueRun('run-crashy', { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }] });
    const before = (await deadLetters()).length;
    await publishRunCommand(bus, { type: 'run.start', runId: 'run-crashy', issuedAt: new Date().toISOString() });
    // A runner that takes the command and dies, every time.
    const durable = await ensureDurable(bus, {
      stream: bus.names.commandsStream,
      durable: bus.names.durables.runners,
      filterSubject: bus.names.commandsWildcard,
      ackWaitMs: 1_000,
      maxDeliver: 3,
    });
    const taken: number[] = [];
    const letter = await eventually(
      async () => {
        const msg = await durable.next({ expires: 1_500 });
        if (msg) taken.push(msg.info.deliveryCount);
        const found = (await deadLetters()).slice(before);
        if (found.length === 0) throw new Error('not dead-lettered yet');
        return found[0];
      },
      30,
      0,
    );
    expect(taken).toEqual([1, 2, 3]);
    expect(letter.reason).toBe('not acknowledged after 3 deliveries (its consumers stopped while handling it)');
    await eventually(async () => expect(await deadLettered('deliveries_exhausted')).toBe(1));
    expect(await commandsLeft()).toBe(0);
    watcher.onApplicationShutdown();
  });
});
