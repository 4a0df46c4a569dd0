import { EMPTY_LOG, provisionStreams, readRunLog, RunLogWriter, subscribeRunControl, type Bus } from '@spindle/bus';
import type { RunEventDraft } from '@spindle/contracts';
import { removeStreams, testBus, testNamespace } from '@spindle/testing';
import { RunCanceller } from './run-canceller';

const by = { kind: 'key' as const, id: 'key-1', name: 'ops' };

describe('RunCanceller against a running run', () => {
  const namespace = testNamespace();
  let bus: Bus;

  beforeAll(async () => {
    bus = await testBus(namespace, 'canceller-test');
    await provisionStreams(bus);
  });
  afterAll(async () => {
    await bus.close();
    await removeStreams(namespace);
  });

  /** A run a runner holds: queued and started, so a cancel goes to the runner over core NATS. */
  const running = async (runId: string) => {
    const log = new RunLogWriter(bus, runId, EMPTY_LOG);
    await log.write({
      type: 'run.queued',
      spanId: 'root',
      path: 'root',
      data: { workflow: { name: 'w', version: 1 }, input: null, state: {}, definition: {} },
    });
    await log.write({ type: 'run.started', spanId: 'root', path: 'root', data: { attempt: 1, worker: 'w-1' } });
    return log;
  };

  /** Cancels, and writes `end` as the runner would once the cancel reached it (no runner listens here). */
  const cancelWhile = async (runId: string, log: RunLogWriter, end: RunEventDraft) => {
    const told = new Promise<void>((resolve) => {
      const subscription = subscribeRunControl(bus, runId, { onMessage: () => (subscription.close(), resolve()) });
    });
    await bus.nc.flush();
    const cancel = new RunCanceller(bus, 5_000).cancel(runId, 'stop', by);
    await told;
    await log.write(end);
    return cancel;
  };

  it('reports a run that completed before the cancel reached it as a conflict, not as canceled', async () => {
    const runId = '01JQ00000000000000000CANC1';
    const log = await running(runId);
    // The run's own end lands after the cancel was sent, while the canceller waits for it to settle.
    const cancel = cancelWhile(runId, log, {
      type: 'run.completed',
      spanId: 'root',
      path: 'root',
      data: { output: {}, durationMs: 1, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } },
    });
    await expect(cancel).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('ended (run.completed) before the cancel reached it'),
    });
  });

  it('reports canceled once the runner wrote run.canceled', async () => {
    const runId = '01JQ00000000000000000CANC2';
    const log = await running(runId);
    const cancel = cancelWhile(runId, log, {
      type: 'run.canceled',
      spanId: 'root',
      path: 'root',
      data: { reason: 'stop', durationMs: 1, canceledBy: by },
    });
    await expect(cancel).resolves.toEqual({ runId, status: 'canceled' });
    expect((await readRunLog(bus, runId)).events.at(-1)?.type).toBe('run.canceled');
  });
});
