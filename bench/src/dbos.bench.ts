import { performance } from 'node:perf_hooks';
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { cpuBetween, readCpuByProcess } from './process-cpu';
import { median } from './stats';

export interface DbosFigures {
  /** Sequential `steps`-step workflows, one at a time: median ms per step. */
  msPerStep: number;
  /** `concurrency` workflows at once, `rounds` rounds: median steps per second. */
  nodesPerSec: number;
  /** CPU per step of the concurrent rounds, by process role (this process runs DBOS; Postgres its backends). */
  cpuPerNodeUs: Array<[string, number]>;
}

/**
 * DBOS Transact, the durable-workflow peer, on the same shape as the other baselines: a workflow
 * of `steps` steps, each checkpointed to its Postgres system database (its production default),
 * in this process. DBOS is a process-wide singleton: launched once here, shut down after, and its
 * system database (one of the run's own) dropped.
 */
export async function measureDbos(databaseUrl: string, database: string, runs = 10, steps = 50, concurrency = 20, rounds = 3) {
  const url = new URL(databaseUrl);
  url.pathname = `/${database}`;
  DBOS.setConfig({ name: 'spindle-bench', systemDatabaseUrl: url.toString(), logLevel: 'error' });
  const chain = DBOS.registerWorkflow(
    async (n: number) => {
      let count = 0;
      for (let i = 0; i < n; i++) count = await DBOS.runStep(async () => count + 1, { name: `step_${i + 1}` });
      return count;
    },
    { name: 'chain' },
  );
  const run = async () => {
    const count = await chain(steps);
    if (count !== steps) throw new Error(`the DBOS benchmark ran ${count} steps`);
  };
  await DBOS.launch();
  try {
    const perStep: number[] = [];
    for (let r = 0; r < runs; r++) {
      const started = performance.now();
      await run();
      perStep.push((performance.now() - started) / steps);
    }
    const rates: number[] = [];
    const cpuBefore = readCpuByProcess();
    for (let r = 0; r < rounds; r++) {
      const started = performance.now();
      await Promise.all(Array.from({ length: concurrency }, run));
      rates.push((concurrency * steps) / ((performance.now() - started) / 1000));
    }
    const executed = rounds * concurrency * steps;
    const cpuPerNodeUs = cpuBetween(cpuBefore, readCpuByProcess()).map(([role, ms]): [string, number] => [role, (ms * 1000) / executed]);
    return { msPerStep: median(perStep), nodesPerSec: median(rates), cpuPerNodeUs } satisfies DbosFigures;
  } finally {
    await DBOS.shutdown();
    await dropDatabase(databaseUrl, database);
  }
}

async function dropDatabase(databaseUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(`drop database if exists "${database.replace(/"/g, '')}" with (force)`);
  } finally {
    await client.end();
  }
}
