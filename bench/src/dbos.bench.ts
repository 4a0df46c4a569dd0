import { DBOS } from '@dbos-inc/dbos-sdk';
import { concurrentRounds, sequentialMsPerStep, type ChainFigures } from './chain-baseline';
import { databaseUrlFor, dropScratchDatabase } from './pg-databases';

/** Ms per step sequentially, steps/s and CPU per step 20 at once, and what each step persisted. */
export type DbosFigures = ChainFigures;

/**
 * DBOS Transact, the durable-workflow peer, on the same shape as the other baselines: a workflow
 * of `steps` steps, each checkpointed to its Postgres system database (its production default),
 * in this process. DBOS is a process-wide singleton: launched once here, shut down after, and its
 * system database (one of the run's own) dropped.
 */
export async function measureDbos(
  databaseUrl: string,
  database: string,
  runs = 10,
  steps = 50,
  concurrency = 20,
  rounds = 3,
): Promise<DbosFigures> {
  DBOS.setConfig({ name: 'spindle-bench', systemDatabaseUrl: databaseUrlFor(databaseUrl, database), logLevel: 'error' });
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
    const msPerStep = await sequentialMsPerStep(run, steps, runs);
    const concurrent = await concurrentRounds(run, { steps, concurrency, rounds, writes: { url: databaseUrl, database } });
    return { msPerStep, ...concurrent };
  } finally {
    await DBOS.shutdown();
    await dropScratchDatabase(databaseUrl, database);
  }
}
