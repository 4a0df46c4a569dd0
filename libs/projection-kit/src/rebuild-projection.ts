import { deleteDurable, durableBacklog, type Bus, type DurableSpec } from '@spindle/bus';
import type { ProjectionProgressTables } from '@spindle/db';
import type { Logger } from '@spindle/telemetry';
import type { Kysely } from 'kysely';
import type { Projection } from './projection';
import { ProjectionRunner } from './projection-runner';
import { clearProgress, progressTables } from './run-progress';

export interface RebuildResult {
  /** Events this process applied (a live consumer beside it may have applied others). */
  events: number;
  runs: number;
}

const CAUGHT_UP_POLL_MS = 200;

/**
 * Rebuilds a projection from the log: empties its rows and progress, deletes its durable
 * consumer and replays the stream from its start through the same runner as the live consumer,
 * on the same durable (so a running service shares the work instead of racing it), until
 * nothing is pending or awaiting an ack.
 */
export async function rebuildProjection<DB extends ProjectionProgressTables>(
  bus: Bus,
  db: Kysely<DB>,
  projection: Projection<DB>,
  logger: Logger,
): Promise<RebuildResult> {
  await db.transaction().execute(async (trx) => {
    await projection.reset(trx);
    await clearProgress(progressTables(trx));
  });
  const runs = new Set<string>();
  let events = 0;
  const runner = new ProjectionRunner<DB>(bus, db, projection, logger, {
    batchSize: 1_000,
    lingerMs: 0,
    onBatch: (batch) => {
      events += batch.applied;
      for (const id of batch.runIds) runs.add(id);
    },
  });
  await deleteDurable(bus, runner.spec);
  logger.info({ projection: projection.name }, 'projection emptied; replaying the run log');
  await runner.start();
  try {
    await untilCaughtUp(bus, runner.spec);
  } finally {
    await runner.stop();
  }
  return { events, runs: runs.size };
}

async function untilCaughtUp(bus: Bus, spec: DurableSpec): Promise<void> {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, CAUGHT_UP_POLL_MS));
    // Not found until the loop has created the consumer.
    const backlog = await durableBacklog(bus, spec);
    if (backlog && backlog.pending === 0 && backlog.ackPending === 0) return;
  }
}
