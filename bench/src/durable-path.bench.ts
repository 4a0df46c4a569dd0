import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { RunEvent } from '@spindle/contracts';
import { createDatabase, serviceSchema } from '@spindle/db';
import type { Stack } from '@spindle/testing';
import { sql, type Kysely } from 'kysely';
import { chainOfFunctions, type GatewayClient } from './gateway-client';
import { cpuBetween, readCpuByProcess } from './process-cpu';
import { startPgWrites, type PgWrites } from './pg-writes';
import { median, percentile, poolMap } from './stats';

export interface ConcurrentChains {
  nodesPerSec: number;
  /** CPU every process on the machine used per node over all rounds, µs, by role, largest first. */
  cpuPerNodeUs: Array<[string, number]>;
  /**
   * Round trips per run over all rounds, counted by the servers: Postgres transactions committed in
   * the stack's database, JetStream API requests of the account, messages stored on the events
   * stream. Unlike CPU time (±25 % between identical runs on a shared 2-core machine), these hold
   * still, so a change's effect on them is seen in one run.
   */
  perRun?: Counts;
  /**
   * What the rounds made Postgres do per node: statements and WAL in the stack's database (all its
   * clients), rows written by them, and the growth of the tables in the stack's schemas.
   */
  persistedPerNode?: PgWrites;
}

type Counts = { pgTransactions: number; jetStreamApiRequests: number; logMessages: number };

async function countRoundTrips(stack: Stack, db: Kysely<unknown>): Promise<Counts> {
  const { rows } = await sql<{ n: string }>`select xact_commit as n from pg_stat_database where datname = current_database()`.execute(db);
  const account = await stack.bus.jsm.getAccountInfo();
  const events = await stack.bus.jsm.streams.info(stack.bus.names.eventsStream);
  return { pgTransactions: Number(rows[0]?.n ?? 0), jetStreamApiRequests: account.api.total, logMessages: events.state.messages };
}

/**
 * Nodes per second through the whole stack with `concurrency` runs of an `nodes`-node chain
 * started at once: all nodes executed over the time from the first POST to the last run's end.
 * Median of `rounds`, after `warmUpRounds` unmeasured ones (as every peer gets: `concurrentRounds`).
 * With it, what the rounds cost in CPU per node, process by process: on a machine this size the
 * sum is what bounds nodes per second.
 */
export async function measureConcurrentChains(
  client: GatewayClient,
  stack?: Stack,
  concurrency = 20,
  nodes = 50,
  rounds = 3,
  warmUpRounds = 1,
): Promise<ConcurrentChains> {
  const workflow = `bench-chain-${nodes}`;
  await client.putWorkflow(workflow, chainOfFunctions(nodes));
  for (let r = 0; r < warmUpRounds; r++) {
    const runs = await Promise.all(Array.from({ length: concurrency }, () => client.startRun(workflow)));
    await Promise.all(runs.map((runId) => client.waitTerminal(runId)));
  }
  const rates: number[] = [];
  const url = stack?.env.DATABASE_URL;
  const db = url ? createDatabase({ url, schema: 'public', maxConnections: 1 }) : undefined;
  const writes =
    stack && url ? await startPgWrites({ url, database: new URL(url).pathname.slice(1), schemaPrefix: `${stack.namespace}_` }) : undefined;
  const countsBefore = stack && db && (await countRoundTrips(stack, db));
  const cpuBefore = readCpuByProcess();
  for (let r = 0; r < rounds; r++) {
    const started = performance.now();
    const runs = await Promise.all(Array.from({ length: concurrency }, () => client.startRun(workflow)));
    const ends = await Promise.all(runs.map((runId) => client.waitTerminal(runId)));
    if (ends.some((events) => events.at(-1)?.type !== 'run.completed')) throw new Error('a concurrent chain run did not complete');
    rates.push((concurrency * nodes) / ((performance.now() - started) / 1000));
  }
  const executed = rounds * concurrency * nodes;
  const cpuPerNodeUs = cpuBetween(cpuBefore, readCpuByProcess()).map(([role, ms]): [string, number] => [role, (ms * 1000) / executed]);
  const persistedPerNode = await writes?.stop(executed);
  if (!stack || !db || !countsBefore) return { nodesPerSec: median(rates), cpuPerNodeUs };
  // Postgres 15 flushes a backend's counters within a second of its last transaction.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const after = await countRoundTrips(stack, db);
  await db.destroy();
  const runs = rounds * concurrency;
  const perRun = {
    pgTransactions: (after.pgTransactions - countsBefore.pgTransactions) / runs,
    jetStreamApiRequests: (after.jetStreamApiRequests - countsBefore.jetStreamApiRequests) / runs,
    logMessages: (after.logMessages - countsBefore.logMessages) / runs,
  };
  return { nodesPerSec: median(rates), cpuPerNodeUs, perRun, ...(persistedPerNode ? { persistedPerNode } : {}) };
}

export interface ProjectionLag {
  eventsPerSec: number;
  events: number;
  p50: number;
  p99: number;
}

/**
 * Append → trace row visible: runs of a 50-node chain started at a steady rate that makes about
 * `eventsPerSec` log events per second, while the trace recorder's progress table is polled;
 * an event's lag is the first poll that shows it applied minus its `at` (stamped by the runner
 * when it appended it). Same machine, same clock.
 */
export async function measureProjectionLag(client: GatewayClient, stack: Stack, eventsPerSec = 2_000, seconds = 6): Promise<ProjectionLag> {
  const nodes = 50;
  const workflow = `bench-chain-${nodes}`;
  await client.putWorkflow(workflow, chainOfFunctions(nodes));
  const eventsPerRun = 3 * nodes + 3;
  const runsPerSec = eventsPerSec / eventsPerRun;
  const total = Math.round(runsPerSec * seconds);
  const schema = serviceSchema('trace', stack.namespace);
  const db = createDatabase({ url: stack.env.DATABASE_URL!, schema, maxConnections: 2 });
  const visibleAt = new Map<string, Array<{ seq: number; at: number }>>();
  const runIds: string[] = [];
  let polling = true;
  const poller = (async () => {
    while (polling) {
      if (runIds.length > 0) {
        const { rows } = await sql<{ run_id: string; last_seq: number }>`
          select run_id, last_seq from ${sql.table('run_progress')} where run_id = any(${[...runIds]})`.execute(db);
        const now = Date.now();
        for (const row of rows) {
          const seen = visibleAt.get(row.run_id) ?? [];
          if ((seen.at(-1)?.seq ?? 0) < row.last_seq) seen.push({ seq: row.last_seq, at: now });
          visibleAt.set(row.run_id, seen);
        }
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  try {
    const started = Date.now();
    const ended: Array<Promise<RunEvent[]>> = [];
    for (let i = 0; i < total; i++) {
      // A steady start rate: run i is started at i / runsPerSec seconds.
      const due = started + (i * 1000) / runsPerSec;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      const runId = await client.startRun(workflow);
      runIds.push(runId);
      ended.push(client.waitTerminal(runId));
    }
    const logs = await Promise.all(ended);
    const elapsed = (Date.now() - started) / 1000;
    // Every event applied before the poller stops.
    while (logs.some((events, i) => (visibleAt.get(runIds[i]!)?.at(-1)?.seq ?? 0) < events.length))
      await new Promise((r) => setTimeout(r, 20));
    const lags: number[] = [];
    logs.forEach((events, i) => {
      const seen = visibleAt.get(runIds[i]!) ?? [];
      for (const event of events) {
        const shown = seen.find((s) => s.seq >= event.seq);
        if (shown) lags.push(shown.at - Date.parse(event.at));
      }
    });
    return { eventsPerSec: lags.length / elapsed, events: lags.length, p50: percentile(lags, 50), p99: percentile(lags, 99) };
  } finally {
    polling = false;
    await poller;
    await db.destroy();
  }
}

export interface ThousandRuns {
  runs: number;
  waitingOnPerson: number;
  runnerRssBeforeMiB: number;
  runnerRssPeakMiB: number;
  rssPerHeldRunKiB: number;
  nodeOverheadP50Ms: number;
  nodeOverheadP99Ms: number;
  /** Longest time from a run's model answer to its end (a starved run would show here). */
  slowestFinishMs: number;
}

/**
 * `runs` runs held by one runner at once: half wait on a person (a human node), half on a model
 * that answers after `modelDelayMs` and then run a 10-node chain. Reports the runner's resident
 * memory and, for the model half, the per-node overhead of the chain after the answer.
 */
export async function measureThousandRuns(client: GatewayClient, stack: Stack, runs = 1_000, modelDelayMs = 3_000): Promise<ThousandRuns> {
  const chain = chainOfFunctions(10);
  await client.putWorkflow('bench-wait-model', {
    kind: 'graph',
    nodes: [{ id: 'ask', type: 'llm', model: 'compatible:sleepy', prompt: 'sleep {{input}}' }, ...chain.nodes],
    edges: [{ from: 'ask', to: 'step_1' }, ...chain.edges],
  });
  await client.putWorkflow('bench-wait-person', {
    kind: 'graph',
    nodes: [{ id: 'approve', type: 'human', prompt: 'OK?', form: 'boolean' }],
  });
  const reply = stack.fake.reply;
  stack.fake.reply = () => ({ text: 'awake', delayMs: modelDelayMs });
  const runner = stack.processes.find((p) => p.name === 'runner');
  const rss = () => (runner?.child.pid ? residentMiB(runner.child.pid) : Number.NaN);
  const before = rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rss())), 100);
  try {
    const kinds = Array.from({ length: runs }, (_, i) => (i % 2 === 0 ? 'bench-wait-model' : 'bench-wait-person'));
    const ids = await poolMap(kinds, 50, (workflow) => client.startRun(workflow, { input: 'x' }));
    const modelRuns = ids.filter((_, i) => kinds[i] === 'bench-wait-model');
    const personRuns = ids.filter((_, i) => kinds[i] === 'bench-wait-person');
    const logs = await poolMap(modelRuns, 200, (runId) => client.waitTerminal(runId));
    let awaiting = 0;
    await poolMap(personRuns, 50, async (runId) => {
      for (;;) {
        const { events } = await client.events(runId);
        if (events.some((e) => e.type === 'run.awaiting')) return void awaiting++;
        await new Promise((r) => setTimeout(r, 200));
      }
    });
    const perNode: number[] = [];
    const finish: number[] = [];
    for (const events of logs) {
      const answered = events.find((e) => e.type === 'model.completed');
      const end = events.at(-1);
      if (end?.type !== 'run.completed' || !answered) throw new Error(`a model run ended ${end?.type}`);
      perNode.push((Date.parse(end.at) - Date.parse(answered.at)) / 10);
      finish.push(Date.parse(end.at) - Date.parse(answered.at));
    }
    return {
      runs,
      waitingOnPerson: awaiting,
      runnerRssBeforeMiB: before,
      runnerRssPeakMiB: peak,
      rssPerHeldRunKiB: ((peak - before) * 1024) / runs,
      nodeOverheadP50Ms: percentile(perNode, 50),
      nodeOverheadP99Ms: percentile(perNode, 99),
      slowestFinishMs: Math.max(...finish),
    };
  } finally {
    clearInterval(sampler);
    stack.fake.reply = reply;
  }
}

function residentMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return kib / 1024;
}
