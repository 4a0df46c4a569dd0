import { readsOnly, type RunEvent, type RunEventOf } from '@spindle/contracts';
import { jsonRecordSet, recordSetNames, type CheckpointTables, type NodeResultsTable, type RecordSetColumns } from '@spindle/db';
import type { Projection } from '@spindle/projection-kit';
import { sql, type Insertable, type Transaction } from 'kysely';
import { checkpointRowOf, initialStateRowOf, nodeResultRowOf } from './checkpoint-rows.mapper';
import { expiryCutoff } from './expiry-cutoff';
import { waitingChangesOf } from './waiting-runs';

/**
 * The checkpoint service's read model: each run's initial state, every `checkpoint.saved` (what
 * changed, frontier) and every `checkpoint: true` node's result by its cache key. The state at a
 * checkpoint is the initial state with the changes up to it laid over (`CheckpointReader`), so a
 * value is stored once however many checkpoints follow. Rows are keyed by what their event names and
 * inserted only when absent; a row already past the TTL is never inserted, so a replay of the log
 * does not bring back what the purge removed.
 */
export class CheckpointProjection implements Projection<CheckpointTables> {
  readonly name = 'checkpoint';
  /** The initial state, the checkpoints and the cached results; whether a run waits is told by types alone. */
  readonly reads = readsOnly(['run.queued', 'checkpoint.saved', 'node.completed']);

  constructor(
    readonly durable: string,
    private readonly ttlHours: number,
  ) {}

  async apply(trx: Transaction<CheckpointTables>, events: readonly RunEvent[]): Promise<void> {
    const { cutoff } = await trx.selectNoFrom(expiryCutoff(this.ttlHours).as('cutoff')).executeTakeFirstOrThrow();
    const live = events.filter((e) => Date.parse(e.at) >= cutoff.getTime());

    const initial = live.filter((e): e is RunEventOf<'run.queued'> => e.type === 'run.queued').map(initialStateRowOf);
    if (initial.length > 0)
      await trx
        .insertInto('initial_states')
        .values(initial)
        .onConflict((oc) => oc.column('run_id').doNothing())
        .execute();

    // Sorted by key, so two replicas inserting the same rows take their locks in one order.
    const checkpoints = live
      .filter((e): e is RunEventOf<'checkpoint.saved'> => e.type === 'checkpoint.saved')
      .map(checkpointRowOf)
      .sort((a, b) => compare(a.run_id, b.run_id) || compare(a.checkpoint_id, b.checkpoint_id));
    if (checkpoints.length > 0) {
      await trx
        .insertInto('checkpoints')
        .columns(recordSetNames(CHECKPOINT_COLUMNS))
        .expression(jsonRecordSet(checkpoints, CHECKPOINT_COLUMNS))
        .onConflict((oc) => oc.columns(['run_id', 'checkpoint_id']).doNothing())
        .execute();
    }

    const nodeResults = live
      .map(nodeResultRowOf)
      .filter((row): row is Insertable<NodeResultsTable> => row !== undefined)
      .sort((a, b) => compare(a.key, b.key));
    if (nodeResults.length > 0) {
      await trx
        .insertInto('node_results')
        .values(nodeResults)
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
    }

    // Every event counts here, however old: a run that has waited past the TTL still waits.
    const changes = waitingChangesOf(events);
    const waiting = changes.flatMap((c) => (c.waiting ? [{ run_id: c.runId, since: c.since }] : []));
    const ended = changes.flatMap((c) => (c.waiting ? [] : [c.runId]));
    if (waiting.length > 0)
      await trx
        .insertInto('waiting_runs')
        .values(waiting)
        .onConflict((oc) => oc.column('run_id').doUpdateSet((eb) => ({ since: eb.ref('excluded.since') })))
        .execute();
    if (ended.length > 0) await trx.deleteFrom('waiting_runs').where('run_id', 'in', ended).execute();
  }

  async reset(trx: Transaction<CheckpointTables>): Promise<void> {
    await sql`truncate table checkpoints, node_results, initial_states, waiting_runs`.execute(trx);
  }

  async erase(trx: Transaction<CheckpointTables>, runIds: readonly string[]): Promise<void> {
    for (const table of ['checkpoints', 'node_results', 'initial_states', 'waiting_runs'] as const) {
      await trx
        .deleteFrom(table)
        .where('run_id', 'in', [...runIds])
        .execute();
    }
  }
}

type CheckpointRow = ReturnType<typeof checkpointRowOf>;
/** A run's checkpoints go in one statement of one parameter (the step's row count times nine values, before). */
const CHECKPOINT_COLUMNS: RecordSetColumns<CheckpointRow> = {
  run_id: 'text',
  checkpoint_id: 'text',
  seq: 'integer',
  step: 'integer',
  changes: 'jsonb',
  state: 'jsonb',
  frontier: 'jsonb',
  graph_hash: 'text',
  saved_at: 'timestamptz',
};

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
