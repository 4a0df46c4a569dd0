import { readsOnly, type RunEvent, type ThreadRunStatus } from '@spindle/contracts';
import { threadRunStatusAfter } from '@spindle/projections';
import type { GatewayTables } from '@spindle/db';
import type { Fold } from '@spindle/projection-kit';
import { sql, type Transaction } from 'kysely';

/**
 * The threads' view of the log, folded with the admission (one consumer, one transaction): a
 * run's `run.queued` that names a thread puts it there (or moves its pending row on), later events
 * move its status, `run.completed` keeps its end state (the thread's state is its last completed
 * run's), and the runs a newer run rolled back are marked so, whatever their own log says after.
 */
export class ThreadProjection implements Fold<GatewayTables> {
  /** The thread a run joins, what it waits for, and its end state. */
  readonly reads = readsOnly(['run.queued', 'run.awaiting', 'run.completed']);

  async apply(trx: Transaction<GatewayTables>, events: readonly RunEvent[]): Promise<void> {
    const moves = new Map<string, { status: ThreadRunStatus; output?: string }>();
    const rolledBack: string[] = [];
    for (const e of events) {
      if (e.type === 'run.queued' && e.data.thread) {
        const { id, position, multitaskStrategy, rollsBack } = e.data.thread;
        await trx
          .insertInto('thread_runs')
          .values({
            run_id: e.runId,
            thread_id: id,
            position,
            workflow: e.data.workflow.name,
            status: 'queued',
            strategy: multitaskStrategy,
            queued_at: new Date(e.at),
            request: null,
            error: null,
            output: null,
            starting_at: null,
          })
          .onConflict((oc) => oc.column('run_id').doUpdateSet({ request: null, starting_at: null }))
          .execute();
        rolledBack.push(...(rollsBack ?? []));
      }
      const next = (threadRunStatusAfter[e.type] as ((e: RunEvent) => ThreadRunStatus) | null)?.(e);
      if (next) moves.set(e.runId, { ...moves.get(e.runId), status: next });
      if (e.type === 'run.completed') moves.set(e.runId, { status: 'completed', output: JSON.stringify(e.data.output ?? null) });
    }
    await moveThreadRuns(trx, moves);
    if (rolledBack.length) await trx.updateTable('thread_runs').set({ status: 'rolled_back' }).where('run_id', 'in', rolledBack).execute();
  }

  /** What the log gave is forgotten; runs still waiting for their turn (not in the log yet) stay. */
  async reset(trx: Transaction<GatewayTables>): Promise<void> {
    await trx.deleteFrom('thread_runs').where('status', '!=', 'pending').where('error', 'is', null).execute();
  }

  async erase(trx: Transaction<GatewayTables>, runIds: readonly string[]): Promise<void> {
    await trx
      .deleteFrom('thread_runs')
      .where('run_id', 'in', [...runIds])
      .execute();
  }
}

/**
 * Every run of the batch moved to its new status (a rolled-back one stays so) and a completed
 * one's end state kept, in one statement after the inserts: most runs of a batch are on no
 * thread at all, and this costs them one round trip per batch, not one per status.
 */
async function moveThreadRuns(
  trx: Transaction<GatewayTables>,
  moves: ReadonlyMap<string, { status: ThreadRunStatus; output?: string }>,
): Promise<void> {
  if (moves.size === 0) return;
  const rows = [...moves].map(([runId, m]) => sql`(${runId}, ${m.status}, ${m.output ?? null})`);
  await sql`update thread_runs
    set status = case when thread_runs.status = 'rolled_back' then thread_runs.status else v.status end,
      output = coalesce(v.output::jsonb, thread_runs.output)
    from (values ${sql.join(rows)}) as v(run_id, status, output)
    where thread_runs.run_id = v.run_id`.execute(trx);
}
