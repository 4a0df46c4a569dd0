import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, metricValue, startNatsServer, startStack, testEnv, type NatsServerProcess, type Stack } from '@spindle/testing';
import { putHelloWorkflow, runHelloToEnd } from './hello-runs';

/**
 * Issue 26, item 2: nats-server stopped, its store removed, started again. Every service kept
 * saying "ready" and every read of an existing run answered 500. Here the services make their
 * streams again by themselves (and count it), a run whose log went with the store is `410
 * run_log_lost` on every route that reads it, the runs list marks it `logLost` and it can still be
 * erased, and new runs work.
 */
describe('a lost JetStream store', () => {
  let nats: NatsServerProcess;
  let stack: Stack;

  beforeAll(async () => {
    nats = await startNatsServer();
    stack = await startStack({ infra: { natsUrl: nats.url, databaseUrl: testEnv().databaseUrl } });
    await putHelloWorkflow(stack);
  });
  afterAll(async () => {
    await stack?.stop();
    await nats?.stop();
  });

  it('makes the streams again, answers 410 run_log_lost for the runs it took, and runs new ones', async () => {
    const lost = await runHelloToEnd(stack);

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

    const after = await runHelloToEnd(stack);
    expect(after.log.map((e) => e.seq)).toEqual(after.log.map((_, i) => i + 1));
    // The list still has the lost run as it was last projected, and says its log is gone.
    const listed = await eventually(
      async () => {
        const { runs } = (await (await stack.api('/v1/runs?limit=10')).json()) as { runs: Array<{ runId: string; logLost?: true }> };
        const byId = new Map(runs.map((r) => [r.runId, r]));
        expect(byId.has(after.runId)).toBe(true);
        return byId;
      },
      150,
      100,
    );
    expect(listed.get(lost.runId)).toMatchObject({ logLost: true, status: 'completed' });
    expect(listed.get(after.runId)).not.toHaveProperty('logLost');
    // What is left of a lost run can still be erased (a data-protection request), and then is gone from the list.
    const erased = await stack.api(`/v1/runs/${lost.runId}`, { method: 'DELETE' });
    expect([erased.status, erased.status === 204 ? '' : await erased.text()]).toEqual([204, '']);
    const { runs } = (await (await stack.api('/v1/runs?limit=10')).json()) as { runs: Array<{ runId: string }> };
    expect(runs.map((r) => r.runId)).toEqual(expect.arrayContaining([after.runId]));
    expect(runs.map((r) => r.runId)).not.toContain(lost.runId);
    expect((await stack.api(`/v1/runs/${lost.runId}`)).status).toBe(410);
  });
});
