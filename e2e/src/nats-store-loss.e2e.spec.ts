import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent } from '@spindle/contracts';
import { eventually, metricValue, startNatsServer, startStack, testEnv, type NatsServerProcess, type Stack } from '@spindle/testing';

/**
 * Issue 26, item 2: nats-server stopped, its store removed, started again. Every service kept
 * saying "ready" and every read of an existing run answered 500. Here the services make their
 * streams again by themselves (and count it), a run whose log went with the store is `410
 * run_log_lost` on every route that reads it, and new runs work.
 */
describe('a lost JetStream store', () => {
  let nats: NatsServerProcess;
  let stack: Stack;
  const runToEnd = async (): Promise<{ runId: string; log: RunEvent[] }> => {
    const started = await stack.api('/v1/workflows/hello/runs', { method: 'POST', body: JSON.stringify({ input: { name: 'Ada' } }) });
    expect(started.status).toBe(202);
    const { runId } = (await started.json()) as { runId: string };
    const log = await eventually(
      async () => {
        const { events } = (await (await stack.api(`/v1/runs/${runId}/events`)).json()) as { events: RunEvent[] };
        if (events.at(-1)?.type !== 'run.completed') throw new Error(`run ${runId} has not completed`);
        return events;
      },
      300,
      100,
    );
    return { runId, log };
  };

  beforeAll(async () => {
    nats = await startNatsServer();
    stack = await startStack({ infra: { natsUrl: nats.url, databaseUrl: testEnv().databaseUrl } });
    const definition = readFileSync(join(__dirname, '../../examples/hello-workflow.json'), 'utf8');
    expect((await stack.api('/v1/workflows/hello', { method: 'PUT', body: definition })).status).toBe(201);
  });
  afterAll(async () => {
    await stack?.stop();
    await nats?.stop();
  });

  it('makes the streams again, answers 410 run_log_lost for the runs it took, and runs new ones', async () => {
    const lost = await runToEnd();

    await nats.kill('SIGTERM');
    rmSync(join(nats.storeDir, 'js'), { recursive: true, force: true });
    await nats.start();

    // Each service finds its streams missing and makes them again: ready, and counted.
    for (const p of stack.processes) {
      await eventually(
        async () => {
          const res = await fetch(`http://127.0.0.1:${p.port}/readyz`);
          expect(res.status).toBe(200);
        },
        300,
        100,
      );
    }
    const recreated = await Promise.all(
      stack.processes.map(async (p) =>
        metricValue(await (await fetch(`http://127.0.0.1:${p.port}/metrics`)).text(), 'spindle_jetstream_streams_recreated_total'),
      ),
    );
    expect(recreated.some((n) => (n ?? 0) > 0)).toBe(true);

    for (const [method, path] of [
      ['GET', `/v1/runs/${lost.runId}`],
      ['GET', `/v1/runs/${lost.runId}/events`],
      ['GET', `/v1/runs/${lost.runId}/trace`],
      ['GET', `/v1/runs/${lost.runId}/checkpoints`],
      ['POST', `/v1/runs/${lost.runId}/cancel`],
    ] as const) {
      const res = await stack.api(path, { method, ...(method === 'POST' ? { body: '{}' } : {}) });
      expect({ path, method, status: res.status }).toEqual({ path, method, status: 410 });
      expect(await res.json()).toMatchObject({ code: 'run_log_lost' });
    }
    const stream = await stack.sse(`/v1/runs/${lost.runId}/events`);
    expect(stream.status).toBe(410);

    const after = await runToEnd();
    expect(after.log.map((e) => e.seq)).toEqual(after.log.map((_, i) => i + 1));
  });
});
