import type { RunEvent } from '@spindle/contracts';
import type { ProjectionProgressTables } from '@spindle/db';
import type { Kysely } from 'kysely';
import type { Projection } from './projection';
import { endsOf, progressTables, recordProgress } from './run-progress';

/**
 * Folds events that are already in order (each run's gapless slice, continuing its progress)
 * in one transaction, with the progress: what the runner does once it has settled a batch.
 * Tests use it as "one fold of the log" to compare a projection against.
 */
export async function foldEvents<DB extends ProjectionProgressTables>(
  db: Kysely<DB>,
  projection: Projection<DB>,
  events: readonly RunEvent[],
): Promise<void> {
  if (events.length === 0) return;
  await db.transaction().execute(async (trx) => {
    await projection.apply(trx, events);
    await recordProgress(progressTables(trx), endsOf(events));
  });
}
