import { terminalStatuses, type RunEvent } from '@spindle/contracts';
import type { TraceTables } from '@spindle/db';
import type { Projection } from '@spindle/projection-kit';
import { projectEvents } from '@spindle/projections';
import { sql, type Transaction } from 'kysely';
import { closeOrphanSpans, insertEventsReadingRuns, upsertPatches } from './trace-rows.writer';

/**
 * The trace: runs (status, timings, totals), spans (paired start and end, input, delta, usage,
 * cost) and the raw log kept for export. The projection kit hands each run's events once, in
 * order, so this is a fold of patches onto the stored rows.
 */
export class TraceProjection implements Projection<TraceTables> {
  readonly name = 'trace-recorder';

  constructor(readonly durable: string) {}

  async apply(trx: Transaction<TraceTables>, events: readonly RunEvent[]): Promise<void> {
    const patches = projectEvents(events);
    await upsertPatches(trx, patches, await insertEventsReadingRuns(trx, events, [...patches.runs.keys()]));
    const ended = [...patches.runs.values()].filter((p) => p.status && terminalStatuses.includes(p.status)).map((p) => p.runId);
    await closeOrphanSpans(trx, ended);
  }

  /** Scores are not folded from the log: a rebuild keeps them (an erase takes them with the run). */
  async reset(trx: Transaction<TraceTables>): Promise<void> {
    await sql`truncate table runs, spans, run_events`.execute(trx);
  }

  async erase(trx: Transaction<TraceTables>, runIds: readonly string[]): Promise<void> {
    for (const table of ['scores', 'spans', 'run_events', 'runs'] as const)
      await trx
        .deleteFrom(table)
        .where('run_id', 'in', [...runIds])
        .execute();
  }
}
