import type { Experiment, Replay, RunEvent, Score } from '@spindle/contracts';
import type { Stack } from '@spindle/testing';
import { chainOfFunctions, type GatewayClient } from './gateway-client';
import { median } from './stats';

const EVALUATORS = [
  { type: 'json_schema', schema: { type: 'object' } },
  { type: 'regex', pattern: '^\\{' },
  { type: 'latency_below', maxMs: 60_000 },
];

async function api<T>(client: GatewayClient, path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(`${client.baseUrl}${path}`, {
    ...init,
    headers: { 'content-type': 'application/json', ...client.auth, ...(init.headers as object) },
  });
  if (res.status >= 300) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/**
 * What evaluators cost a run: the same 10-node chain with and without three built-in evaluators,
 * one run at a time (same-run baseline), and how long after `run.completed` its scores are there.
 */
export async function measureEvaluatorOverhead(client: GatewayClient, runs = 15) {
  const chain = chainOfFunctions(10);
  await client.putWorkflow('bench-judged', { ...chain, evaluators: EVALUATORS });
  await client.putWorkflow('bench-unjudged', chain);
  const wall = { judged: [] as number[], unjudged: [] as number[] };
  const scoredAfter: number[] = [];
  for (let i = 0; i < runs; i++) {
    for (const name of ['bench-unjudged', 'bench-judged'] as const) {
      const events = await client.waitTerminal(await client.startRun(name));
      const ended = Date.parse(events.at(-1)!.at);
      wall[name === 'bench-judged' ? 'judged' : 'unjudged'].push(ended - Date.parse(events[0]!.at));
      if (name !== 'bench-judged') continue;
      for (;;) {
        const { scores } = await api<{ scores: Score[] }>(client, `/v1/runs/${events[0]!.runId}/scores`);
        if (scores.length === EVALUATORS.length) {
          scoredAfter.push(Date.now() - ended);
          break;
        }
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  }
  return { judgedWallMs: median(wall.judged), unjudgedWallMs: median(wall.unjudged), scoredAfterMs: median(scoredAfter) };
}

/**
 * An experiment over `items` dataset items (a 5-node chain, concurrency 20, three evaluators) from
 * POST to its end, against starting the same runs straight from the client, 20 at a time.
 */
export async function measureExperimentThroughput(client: GatewayClient, items = 1_000) {
  await client.putWorkflow('bench-items', chainOfFunctions(5));
  await api(client, '/v1/datasets/bench-items', { method: 'PUT', body: '{}' });
  await api(client, '/v1/datasets/bench-items/items', {
    method: 'POST',
    body: JSON.stringify({ items: Array.from({ length: items }, (_, i) => ({ input: { i }, expected: { i } })) }),
  });
  const started = Date.now();
  const { experimentId } = await api<Experiment>(client, '/v1/experiments', {
    method: 'POST',
    body: JSON.stringify({ dataset: 'bench-items', workflow: 'bench-items', concurrency: 20, evaluators: EVALUATORS }),
  });
  let experiment: Experiment;
  do {
    await new Promise((r) => setTimeout(r, 200));
    experiment = await api<Experiment>(client, `/v1/experiments/${experimentId}`);
  } while (experiment.status === 'running');
  const experimentMs = Date.now() - started;
  const direct = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (next < items) {
        next += 1;
        await client.waitTerminal(await client.startRun('bench-items', { input: { i: next } }));
      }
    }),
  );
  const directMs = Date.now() - direct;
  return {
    items,
    completed: experiment.summary.byStatus.completed ?? 0,
    experimentItemsPerSec: (items * 1_000) / experimentMs,
    directRunsPerSec: (items * 1_000) / directMs,
  };
}

/** Three model calls in a row, each answered by the provider after `delayMs`: a recording worth replaying. */
const threeCalls = (system: string) => ({
  kind: 'graph',
  nodes: ['draft', 'critique', 'revise'].map((id) => ({
    id,
    type: 'llm',
    model: 'compatible:bench-provider',
    system,
    prompt: `${id}: {{input}}`,
    output_key: id,
  })),
  edges: [
    { from: 'draft', to: 'critique' },
    { from: 'critique', to: 'revise' },
  ],
});

const wallOf = (events: readonly RunEvent[]) => Date.parse(events.at(-1)!.at) - Date.parse(events[0]!.at);

/**
 * Replaying a recorded run against re-running it: `runs` runs of three model calls (the provider
 * answers each after `delayMs`), then each run again with the same input (same-run baseline),
 * then all of them replayed through the same version (every call served) and through a version
 * with another system prompt (stopped at its first call). Walls are read from the logs
 * (`run.queued` to the end); the replay's end to end is from POST until every report is in.
 */
export async function measureReplay(client: GatewayClient, stack: Stack, runs = 20, delayMs = 200) {
  const reply = stack.fake.reply;
  stack.fake.reply = (body) => ({ text: `answer ${JSON.stringify(body).length}`, delayMs });
  try {
    await client.putWorkflow('bench-replayed', threeCalls('Be brief.'));
    const recorded: string[] = [];
    const rerun: number[] = [];
    for (let i = 0; i < runs; i++)
      recorded.push((await client.waitTerminal(await client.startRun('bench-replayed', { input: `q${i}` })))[0]!.runId);
    for (let i = 0; i < runs; i++)
      rerun.push(wallOf(await client.waitTerminal(await client.startRun('bench-replayed', { input: `q${i}` }))));
    const replayed = async (version: number) => {
      const calls = stack.fake.callCount;
      const started = Date.now();
      const { replayId } = await api<Replay>(client, '/v1/workflows/bench-replayed/replays', {
        method: 'POST',
        body: JSON.stringify({ runs: recorded, version }),
      });
      let replay: Replay;
      do {
        await new Promise((r) => setTimeout(r, 50));
        replay = await api<Replay>(client, `/v1/replays/${replayId}`);
      } while (replay.runs.some((r) => r.outcome === 'pending'));
      const endToEndMs = Date.now() - started;
      const walls = await Promise.all(replay.runs.map(async (r) => wallOf((await client.events(r.runId)).events)));
      return {
        wallMs: median(walls),
        endToEndPerRunMs: endToEndMs / runs,
        providerCalls: stack.fake.callCount - calls,
        outcomes: replay.summary.byOutcome,
      };
    };
    const same = await replayed(1);
    await client.putWorkflow('bench-replayed', threeCalls('Be thorough.'));
    const changed = await replayed(2);
    return { runs, providerDelayMs: delayMs, rerunWallMs: median(rerun), same, changed };
  } finally {
    stack.fake.reply = reply;
  }
}
