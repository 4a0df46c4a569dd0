import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import type { RunEvent, RunTrace } from '@spindle/contracts';
import { startStack, type Stack } from '@spindle/testing';

const run = promisify(execFile);

/** Two runner processes share the work; the trace projection rebuilds to the same JSON. */
describe('runners and projections', () => {
  let stack: Stack;
  beforeAll(async () => {
    // One run at a time per runner, and runs that take a moment, so both runners must take some.
    stack = await startStack({ runners: 2, runnerEnv: { RUNNER_CONCURRENCY: '1', SPINDLE_OFFLINE_CHUNK_DELAY_MS: '20' } });
    const res = await stack.api(`/v1/workflows/slow-echo`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        kind: 'graph',
        nodes: [
          { id: 'ask', type: 'llm', model: 'offline:echo', prompt: 'one two three four five six seven eight {{input.n}}', stream: true },
          { id: 'tally', type: 'function', function: 'increment', args: { key: 'rounds' } },
        ],
        edges: [{ from: 'ask', to: 'tally' }],
      }),
    });
    expect(res.status).toBe(201);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('shares runs between two runner processes, each run executed once', async () => {
    const runs = await Promise.all(
      Array.from({ length: 6 }, (_, n) =>
        stack.sse(`/v1/workflows/slow-echo/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ input: { n } }),
        }),
      ),
    );
    const logs = runs.map((r) => r.frames.filter((f) => f.event !== 'token').map((f) => JSON.parse(f.data) as RunEvent));
    for (const [n, events] of logs.entries()) {
      expect(events.at(-1)).toMatchObject({
        type: 'run.completed',
        data: { output: { output: `one two three four five six seven eight ${n}`, rounds: 1 } },
      });
      expect(events.filter((e) => e.type === 'run.started')).toHaveLength(1);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    }
    const workers = new Set(
      logs.map((events) => (events.find((e) => e.type === 'run.started') as Extract<RunEvent, { type: 'run.started' }>).data.worker),
    );
    expect(workers.size).toBe(2);
  });

  it('rebuilds the trace projection from the stream to the same trace JSON', async () => {
    const list = (await (await stack.api(`/v1/runs?workflow=slow-echo&limit=50`)).json()) as {
      runs: Array<{ runId: string }>;
    };
    expect(list.runs).toHaveLength(6);
    const traces = async () =>
      Promise.all(list.runs.map(async ({ runId }) => (await (await stack.api(`/v1/runs/${runId}/trace`)).json()) as RunTrace));
    const before = await traces();
    const { stdout } = await run(process.execPath, [resolve(__dirname, '../../apps/trace-recorder/dist/rebuild.js')], {
      env: { ...stack.env },
    });
    expect(stdout).toMatch(/applied/i);
    expect(await traces()).toEqual(before);
  });

  it('cancels a queued run before any runner starts it, and a running run at once', async () => {
    const post = (path: string, body: unknown = {}) =>
      stack.api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const put = await stack.api(`/v1/workflows/long`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'graph', nodes: [{ id: 'wait', type: 'function', function: 'sleep', args: { ms: 120_000 } }] }),
    });
    expect(put.status).toBe(201);
    const start = async () => ((await (await post('/v1/workflows/long/runs')).json()) as { runId: string }).runId;
    const log = async (runId: string) => ((await (await stack.api(`/v1/runs/${runId}/events`)).json()) as { events: RunEvent[] }).events;
    const until = async (runId: string, type: string) => {
      while (!(await log(runId)).some((e) => e.type === type)) await new Promise((r) => setTimeout(r, 50));
    };

    // Both runners take one run each (concurrency 1); the third waits in the queue.
    const running = [await start(), await start()];
    for (const id of running) await until(id, 'node.started');
    const queued = await start();

    const canceledQueued = await post(`/v1/runs/${queued}/cancel`, { reason: 'not needed' });
    expect(canceledQueued.status).toBe(200);
    expect(await canceledQueued.json()).toEqual({ runId: queued, status: 'canceled' });
    expect((await log(queued)).map((e) => e.type)).toEqual(['run.queued', 'run.canceled']);

    for (const id of running) {
      const res = await post(`/v1/runs/${id}/cancel`);
      expect(res.status).toBe(200);
      const events = await log(id);
      expect(events.at(-2)).toMatchObject({ type: 'node.failed', nodeId: 'wait', data: { error: { code: 'canceled' } } });
      expect(events.at(-1)).toMatchObject({ type: 'run.canceled' });
    }
    expect((await post(`/v1/runs/${running[0]}/cancel`)).status).toBe(409);
    expect((await post('/v1/runs/NOSUCHRUN/cancel')).status).toBe(404);
    expect((await post(`/v1/runs/${queued}/cancel`, { bogus: 1 })).status).toBe(400);

    // Once the runners have drained the queue, the canceled run still never started.
    const consumer = () => stack.bus.jsm.consumers.info(stack.bus.names.commandsStream, stack.bus.names.durables.runners);
    let info = await consumer();
    while (info.num_pending + info.num_ack_pending > 0) {
      await new Promise((r) => setTimeout(r, 50));
      info = await consumer();
    }
    expect((await log(queued)).map((e) => e.type)).toEqual(['run.queued', 'run.canceled']);
    const summary = (await (await stack.api(`/v1/runs/${running[1]}`)).json()) as { status: string };
    expect(summary.status).toBe('canceled');
  });
});
