import type { CheckpointTables } from '@spindle/db';
import type { Kysely } from 'kysely';
import { expiryCutoff } from './expiry-cutoff';

export interface PurgedRows {
  checkpoints: number;
  nodeResults: number;
}

/**
 * Deletes checkpoints saved and node results stored longer than `ttlHours` ago. The one purge
 * both the service's hourly timer and `npm run checkpoints:purge` run. One transaction, so both
 * tables are cut at the same instant.
 */
export async function purgeExpiredRows(db: Kysely<CheckpointTables>, ttlHours: number): Promise<PurgedRows> {
  return db.transaction().execute(async (trx) => {
    const checkpoints = await trx.deleteFrom('checkpoints').where('saved_at', '<', expiryCutoff(ttlHours)).executeTakeFirst();
    const nodeResults = await trx.deleteFrom('node_results').where('stored_at', '<', expiryCutoff(ttlHours)).executeTakeFirst();
    return { checkpoints: Number(checkpoints.numDeletedRows), nodeResults: Number(nodeResults.numDeletedRows) };
  });
}
