import { ConsoleLogger } from '@mastra/core/logger';
import { Mastra } from '@mastra/core/mastra';
import { createStep, createWorkflow } from '@mastra/core/workflows';
import { PostgresStore } from '@mastra/pg';
import { z } from 'zod';
import { concurrentRounds, sequentialMsPerStep, type ChainFigures } from './chain-baseline';
import { createScratchDatabase, databaseUrlFor, dropScratchDatabase } from './pg-databases';

/**
 * Mastra's workflows, the TypeScript agent framework's peer, on the same shape as the other
 * baselines: a workflow of `steps` steps chained with `.then`, each adding 1 to a count, in this
 * process, with its production default durability: `PostgresStore` as the Mastra instance's
 * storage, where the default execution engine persists the run's snapshot before and after every
 * step (`shouldPersistSnapshot` defaults to always). Its other defaults stay, its deprecated
 * OpenTelemetry wrapping of steps and storage among them (on unless `telemetry: { enabled: false }`,
 * exporting nothing without Mastra's instrumentation file). Its own database, dropped after.
 */
export async function measureMastra(
  databaseUrl: string,
  database: string,
  runs = 10,
  steps = 50,
  concurrency = 20,
  rounds = 3,
): Promise<ChainFigures> {
  await createScratchDatabase(databaseUrl, database);
  const storage = new PostgresStore({ connectionString: databaseUrlFor(databaseUrl, database) });
  try {
    const Count = z.object({ count: z.number() });
    let chain = createWorkflow({ id: 'chain', inputSchema: Count, outputSchema: Count });
    for (let i = 0; i < steps; i++) {
      const step = createStep({
        id: `step_${i + 1}`,
        inputSchema: Count,
        outputSchema: Count,
        execute: async ({ inputData }) => ({ count: inputData.count + 1 }),
      });
      chain = chain.then(step);
    }
    chain.commit();
    // Its logger at errors only (as DBOS's is): the telemetry warns at start otherwise.
    const mastra = new Mastra({ workflows: { chain }, storage, logger: new ConsoleLogger({ name: 'Mastra', level: 'error' }) });
    await storage.init();
    // An idle connection dropped by the server errs on the pool, which pg-promise leaves without a listener.
    storage.db.$pool.on('error', () => undefined);
    const workflow = mastra.getWorkflow('chain');
    const run = async () => {
      const result = await (await workflow.createRunAsync()).start({ inputData: { count: 0 } });
      const count = result.status === 'success' ? result.result.count : undefined;
      if (count !== steps) throw new Error(`the Mastra benchmark ran ${count ?? result.status} steps`);
    };
    const msPerStep = await sequentialMsPerStep(run, steps, runs);
    const concurrent = await concurrentRounds(run, { steps, concurrency, rounds, writes: { url: databaseUrl, database } });
    await mastra.shutdown();
    return { msPerStep, ...concurrent };
  } finally {
    // `close()` ends its pool without waiting for it (pg-promise's `end()`): this waits.
    await initialized(storage)?.db.$pool.end();
    await dropScratchDatabase(databaseUrl, database);
  }
}

/** The store when `init()` made its pool (its `db` throws before). */
function initialized(storage: PostgresStore): PostgresStore | undefined {
  try {
    return storage.db ? storage : undefined;
  } catch {
    return undefined;
  }
}
