import type { RunEvent, ThreadRunStatus } from '@spindle/contracts';
import { threadRunStatusAfter } from '@spindle/projections';
import type { GatewayTables } from '@spindle/db';
import type { Fold } from '@spindle/projection-kit';
import { sql, type RawBuilder, type Transaction } from 'kysely';

/**
 * The threads' view of the log, folded with the admission (one consumer, one transaction): a
 * run's `run.queued` that names a thread puts it there (or moves its pending row on), later events
 * move its status, `run.completed` keeps its end state (the thread's state is its last completed
 * run's), and the runs a newer run rolled back are marked so, whatever their own log says after.
 */
export class ThreadProjection implements Fold<GatewayTables> {
  async apply(trx: Transaction<GatewayTables>, events: readonly RunEvent[]): Promise<void> {
    const status = new Map<string, ThreadRunStatus>();
    const rolledBack: string[] = [];
    const outputs: RawBuilder<unknown>[] = [];
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
      if (next) status.set(e.runId, next);
      if (e.type === 'run.completed') outputs.push(sql`(${e.runId}, ${JSON.stringify(e.data.output ?? null)})`);
    }
    // One statement for the batch's completed runs (most on no thread), after the inserts above.
    if (outputs.length)
      await sql`update thread_runs set output = v.output::jsonb from (values ${sql.join(outputs)}) as v(run_id, output)
        where thread_runs.run_id = v.run_id`.execute(trx);
    // One statement per status, not per run: most runs of a batch are on no thread at all.
    const byStatus = new Map<ThreadRunStatus, string[]>();
    for (const [runId, next] of status) byStatus.set(next, [...(byStatus.get(next) ?? []), runId]);
    for (const [next, runIds] of byStatus)
      await trx
        .updateTable('thread_runs')
        .set({ status: next })
        .where('run_id', 'in', runIds)
        .where('status', '!=', 'rolled_back')
        .execute();
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
