import type { Checkpoint, CheckpointSummary, NodeResult } from '@spindle/contracts';
import type { CheckpointsTable, CheckpointTables } from '@spindle/db';
import { stateAt } from '@spindle/projections';
import type { Kysely, Selectable } from 'kysely';
import { expiryCutoff } from './expiry-cutoff';

const SUMMARY_COLUMNS = ['run_id', 'checkpoint_id', 'seq', 'step', 'frontier', 'graph_hash', 'saved_at'] as const;

/** Reads the checkpoint tables into the shapes `svc.checkpoint.*` answers with. */
export class CheckpointReader {
  constructor(
    private readonly db: Kysely<CheckpointTables>,
    private readonly ttlHours: number,
  ) {}

  /** The run's checkpoints in log order, without their state (which can be large). */
  async listCheckpoints(runId: string): Promise<CheckpointSummary[]> {
    const rows = await this.db.selectFrom('checkpoints').select(SUMMARY_COLUMNS).where('run_id', '=', runId).orderBy('seq').execute();
    return rows.map(toSummary);
  }

  /**
   * The named checkpoint, or the run's latest when no id is given, with its state: the run's
   * initial state with the changes of its checkpoints up to this one laid over. Null when there
   * is none, or when what it builds on has expired (a run that outlived the TTL).
   */
  async getCheckpoint(runId: string, checkpointId?: string): Promise<Checkpoint | null> {
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        let target = trx
          .selectFrom('checkpoints')
          .select([...SUMMARY_COLUMNS])
          .where('run_id', '=', runId);
        target = checkpointId === undefined ? target.orderBy('seq', 'desc').limit(1) : target.where('checkpoint_id', '=', checkpointId);
        const row = await target.executeTakeFirst();
        if (!row) return null;
        const path = await trx
          .selectFrom('checkpoints')
          .select(['step', 'state', 'changes'])
          .where('run_id', '=', runId)
          .where('seq', '<=', row.seq)
          .orderBy('seq')
          .execute();
        const initial = await trx.selectFrom('initial_states').select('state').where('run_id', '=', runId).executeTakeFirst();
        const state = stateAt(initial?.state as Record<string, unknown> | undefined, path);
        return state ? { ...toSummary(row), state } : null;
      });
  }

  /** The instant before which a checkpoint is past the TTL, on the database's clock (the purge's). */
  async expiredBefore(): Promise<string> {
    const { cutoff } = await this.db.selectNoFrom(expiryCutoff(this.ttlHours).as('cutoff')).executeTakeFirstOrThrow();
    return new Date(cutoff).toISOString();
  }

  /** The first of `keys`, in the caller's order, that has a result not yet past the TTL. */
  async getNodeResult(keys: readonly string[]): Promise<NodeResult | null> {
    const rows = await this.db
      .selectFrom('node_results')
      .select(['key', 'run_id', 'node_id', 'output', 'handle'])
      .where('key', 'in', [...keys])
      // Expired rows wait for the hourly purge; they must not be reused meanwhile.
      .where('stored_at', '>=', expiryCutoff(this.ttlHours))
      .execute();
    const byKey = new Map(rows.map((r) => [r.key, r]));
    const row = keys.map((k) => byKey.get(k)).find((r) => r !== undefined);
    return row
      ? { key: row.key, runId: row.run_id, nodeId: row.node_id, output: row.output as Record<string, unknown>, handle: row.handle }
      : null;
  }
}

function toSummary(row: Pick<Selectable<CheckpointsTable>, (typeof SUMMARY_COLUMNS)[number]>): CheckpointSummary {
  return {
    checkpointId: row.checkpoint_id,
    runId: row.run_id,
    seq: row.seq,
    step: row.step,
    frontier: row.frontier as string[],
    graphHash: row.graph_hash,
    savedAt: row.saved_at.toISOString(),
  };
}
