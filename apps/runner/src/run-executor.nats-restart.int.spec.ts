import { context } from '@opentelemetry/api';
import { connectBus, EMPTY_LOG, provisionStreams, readRunLog, RunLogWriter, type Bus } from '@spindle/bus';
import type { ModelPort, ModelRequest, ModelResult } from '@spindle/engine';
import { startNatsServer, type NatsServerProcess } from '@spindle/testing';
import { executeRunCommand } from './run-executor';
import { testExecutorDeps } from './runner-test.fixture';

/** A model whose answer the test releases: the call is in flight for as long as the test wants. */
function heldModel() {
  const calls: ModelRequest[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const inFlight = new Promise<void>((resolve) => (started = resolve));
  const port: ModelPort = {
    async generate(request): Promise<ModelResult> {
      calls.push(request);
      started();
      await released;
      return { text: 'the answer', usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 }, toolCalls: [], finishReason: 'stop' };
    },
  };
  return { port, calls, inFlight, release };
}

/**
 * Issue 9: a NATS restart during a model call. The provider answered; recording the answer
 * failed while NATS was away. That is the log's fault, not the provider's: the run must go on
 * once NATS is back, with the answer recorded once and the provider asked once.
 */
describe('a run whose NATS restarts during a model call', () => {
  let nats: NatsServerProcess;
  let bus: Bus;

  beforeAll(async () => {
    nats = await startNatsServer();
    bus = await connectBus({ url: nats.url, name: 'runner-restart-test' });
    await provisionStreams(bus);
  });
  afterAll(async () => {
    await bus.close();
    await nats.stop();
  });

  it('records the answer once NATS is back and completes, without asking the provider again', async () => {
    const model = heldModel();
    const deps = testExecutorDeps(bus, { model: model.port, workerId: 'w-restart', busRetryMs: 60_000 });
    const definition = {
      kind: 'graph',
      nodes: [{ id: 'ask', type: 'llm', model: 'offline:held', prompt: 'a question', output_key: 'answer' }],
    };
    await new RunLogWriter(bus, 'run-restart', EMPTY_LOG).write({
      type: 'run.queued',
      spanId: 'root',
      path: 'root',
      data: { workflow: { name: 'w', version: 1 }, input: null, state: {}, definition },
    });

    const running = executeRunCommand(deps, 'run-restart', { attempt: 1, parent: context.active() }, new AbortController().signal);
    await model.inFlight;
    await nats.kill();
    model.release();
    await new Promise((r) => setTimeout(r, 1_500));
    await nats.start();

    expect(await running).toBe('done');
    const { events } = await readRunLog(bus, 'run-restart');
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
    expect(events.at(-1)).toMatchObject({ data: { output: { answer: 'the answer' } } });
    expect(model.calls).toHaveLength(1);
  });
});
