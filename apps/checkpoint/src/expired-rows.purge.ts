import type { CheckpointTables } from '@spindle/db';
import type { Kysely } from 'kysely';
import { expiryCutoff } from './expiry-cutoff';

export interface PurgedRows {
  checkpoints: number;
  nodeResults: number;
}

/**
 * Deletes the checkpoints of runs whose last checkpoint was saved longer than `ttlHours` ago
 * (except runs waiting for a person),
 * with their initial states (a run's checkpoints build on each other, so they go together), and
 * node results stored longer ago. The one purge both the service's hourly timer and
 * `npm run checkpoints:purge` run. One transaction, so the tables are cut at the same instant.
 */
export async function purgeExpiredRows(db: Kysely<CheckpointTables>, ttlHours: number): Promise<PurgedRows> {
  return db.transaction().execute(async (trx) => {
    const cutoff = expiryCutoff(ttlHours);
    // A run waiting for a person resumes from its checkpoints when answered, however long that takes.
    const waiting = trx.selectFrom('waiting_runs').select('run_id');
    const expiredRuns = trx
      .selectFrom('checkpoints')
      .select('run_id')
      .where('run_id', 'not in', waiting)
      .groupBy('run_id')
      .having((eb) => eb.fn.max('saved_at'), '<', cutoff);
    const checkpoints = await trx.deleteFrom('checkpoints').where('run_id', 'in', expiredRuns).executeTakeFirst();
    await trx
      .deleteFrom('initial_states')
      .where('queued_at', '<', cutoff)
      .where('run_id', 'not in', waiting)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('checkpoints').select('run_id').whereRef('checkpoints.run_id', '=', 'initial_states.run_id'))),
      )
      .execute();
    const nodeResults = await trx.deleteFrom('node_results').where('stored_at', '<', cutoff).executeTakeFirst();
    return { checkpoints: Number(checkpoints.numDeletedRows), nodeResults: Number(nodeResults.numDeletedRows) };
  });
}
