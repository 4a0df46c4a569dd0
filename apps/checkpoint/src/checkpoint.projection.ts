import type { RunEvent, RunEventOf } from '@spindle/contracts';
import type { CheckpointTables, NodeResultsTable } from '@spindle/db';
import type { Insertable, Kysely, Transaction } from 'kysely';
import { checkpointRowOf, nodeResultRowOf } from './checkpoint-rows.mapper';
import { expiryCutoff } from './expiry-cutoff';

/**
 * Applies a batch of run events to the checkpoint tables in one transaction.
 *
 * Idempotent on `(run_id, seq)` without depending on arrival order: every row is keyed by what
 * its event names (`(run_id, checkpoint_id)`, the cache key) and inserted only when absent, so an
 * event applied again, in an overlapping batch, or after later events of its run changes nothing.
 * Late arrivals do happen: a batch that failed, or was in flight when the service
 * stopped, is redelivered only after its ack wait, behind newer messages; skipping every
 * `seq <= last applied` would drop it for good. What `last applied` would otherwise protect,
 * a purged row coming back on a replay, is prevented by never inserting a row already past the
 * TTL. `run_progress` records the highest seq applied per run, in the same transaction, for
 * read-your-writes (`waitForSeq`).
 */
export async function applyRunEvents(db: Kysely<CheckpointTables>, events: readonly RunEvent[], ttlHours: number): Promise<void> {
  const unique = [...new Map(events.map((e) => [`${e.runId}:${e.seq}`, e])).values()];
  if (unique.length === 0) return;
  await db.transaction().execute(async (trx) => {
    const { cutoff } = await trx.selectNoFrom(expiryCutoff(ttlHours).as('cutoff')).executeTakeFirstOrThrow();
    const live = unique.filter((e) => Date.parse(e.at) >= cutoff.getTime());

    // Sorted by key, so two replicas inserting the same rows take their locks in one order.
    const checkpoints = live
      .filter((e): e is RunEventOf<'checkpoint.saved'> => e.type === 'checkpoint.saved')
      .map(checkpointRowOf)
      .sort((a, b) => compare(a.run_id, b.run_id) || compare(a.checkpoint_id, b.checkpoint_id));
    if (checkpoints.length > 0) {
      await trx.insertInto('checkpoints').values(checkpoints).onConflict((oc) => oc.columns(['run_id', 'checkpoint_id']).doNothing()).execute();
    }

    const nodeResults = live
      .map(nodeResultRowOf)
      .filter((row): row is Insertable<NodeResultsTable> => row !== undefined)
      .sort((a, b) => compare(a.key, b.key));
    if (nodeResults.length > 0) {
      await trx.insertInto('node_results').values(nodeResults).onConflict((oc) => oc.column('key').doNothing()).execute();
    }

    await recordProgress(trx, unique);
  });
}

/** Raises each run's `last_seq` to the highest seq in the batch; a lower or equal one changes nothing. */
async function recordProgress(trx: Transaction<CheckpointTables>, events: readonly RunEvent[]): Promise<void> {
  const latest = new Map<string, RunEvent>();
  for (const e of events) if ((latest.get(e.runId)?.seq ?? 0) < e.seq) latest.set(e.runId, e);
  const rows = [...latest.values()].map((e) => ({ run_id: e.runId, last_seq: e.seq, last_type: e.type })).sort((a, b) => compare(a.run_id, b.run_id));
  await trx
    .insertInto('run_progress')
    .values(rows)
    .onConflict((oc) =>
      oc
        .column('run_id')
        .doUpdateSet((eb) => ({ last_seq: eb.ref('excluded.last_seq'), last_type: eb.ref('excluded.last_type') }))
        .where('run_progress.last_seq', '<', (eb) => eb.ref('excluded.last_seq')),
    )
    .execute();
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
