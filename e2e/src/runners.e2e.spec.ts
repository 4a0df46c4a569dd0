import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import type { RunEvent, RunTrace } from '@spindle/contracts';
import { readSse, startStack, type Stack } from '@spindle/testing';

const run = promisify(execFile);

/** Two runner processes share the work; the trace projection rebuilds to the same JSON. */
describe('runners and projections', () => {
  let stack: Stack;
  beforeAll(async () => {
    // One run at a time per runner, and runs that take a moment, so both runners must take some.
    stack = await startStack({ runners: 2, runnerEnv: { RUNNER_CONCURRENCY: '1', SPINDLE_OFFLINE_CHUNK_DELAY_MS: '20' } });
    const res = await fetch(`${stack.gatewayUrl}/v1/workflows/slow-echo`, {
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
        readSse(`${stack.gatewayUrl}/v1/workflows/slow-echo/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: { n } }) }),
      ),
    );
    const logs = runs.map((r) => r.frames.filter((f) => f.event !== 'token').map((f) => JSON.parse(f.data) as RunEvent));
    for (const [n, events] of logs.entries()) {
      expect(events.at(-1)).toMatchObject({ type: 'run.completed', data: { output: { output: `one two three four five six seven eight ${n}`, rounds: 1 } } });
      expect(events.filter((e) => e.type === 'run.started')).toHaveLength(1);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    }
    const workers = new Set(logs.map((events) => (events.find((e) => e.type === 'run.started') as Extract<RunEvent, { type: 'run.started' }>).data.worker));
    expect(workers.size).toBe(2);
  });

  it('rebuilds the trace projection from the stream to the same trace JSON', async () => {
    const list = (await (await fetch(`${stack.gatewayUrl}/v1/runs?workflow=slow-echo&limit=50`)).json()) as { runs: Array<{ runId: string }> };
    expect(list.runs).toHaveLength(6);
    const traces = async () => Promise.all(list.runs.map(async ({ runId }) => (await (await fetch(`${stack.gatewayUrl}/v1/runs/${runId}/trace`)).json()) as RunTrace));
    const before = await traces();
    const { stdout } = await run(process.execPath, [resolve(__dirname, '../../apps/trace-recorder/dist/rebuild.js')], { env: { ...stack.env } });
    expect(stdout).toMatch(/applied/i);
    expect(await traces()).toEqual(before);
  });
});
