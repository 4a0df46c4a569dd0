import { isNotFound, pullBatches, type Bus, type DurableSpec } from '@spindle/bus';
import type { Logger } from '@spindle/telemetry';
import { Registry } from 'prom-client';
import { RunEventsProjector } from './run-events.projector';
import { BATCH_SIZE, traceRecorderDurable } from './trace-recorder.durable';
import { TraceMetrics } from './trace.metrics';
import type { TraceRepository } from './trace.repository';

export interface RebuildResult {
  /** Events this process stored (a recorder running beside it may have applied others). */
  events: number;
  runs: number;
}

const CAUGHT_UP_POLL_MS = 200;

/**
 * Rebuilds the read model from the log: empties the tables, deletes the durable consumer and
 * replays the stream from its start through the same projector as the live consumer, on the
 * same durable (so a running recorder shares the work instead of racing it), until nothing is
 * pending or awaiting an ack.
 */
export async function rebuildProjections(bus: Bus, repository: TraceRepository, logger: Logger): Promise<RebuildResult> {
  const spec = traceRecorderDurable(bus.names);
  await repository.truncateAll();
  await bus.jsm.consumers.delete(spec.stream, spec.durable).catch((e: unknown) => {
    if (!isNotFound(e)) throw e;
  });
  logger.info({ stream: spec.stream, durable: spec.durable }, 'trace projections emptied; replaying the run log');

  const projector = new RunEventsProjector(bus, repository, new TraceMetrics(new Registry()), logger);
  const runs = new Set<string>();
  let events = 0;
  const stopping = new AbortController();
  const loop = pullBatches(
    bus,
    spec,
    async (batch) => {
      const result = await projector.handle(batch);
      events += result.applied;
      for (const id of result.runIds) runs.add(id);
    },
    { signal: stopping.signal, batchSize: BATCH_SIZE, onError: (e) => logger.error({ err: e }, 'replay batch failed; retrying') },
  );
  try {
    await untilCaughtUp(bus, spec);
  } finally {
    stopping.abort();
    await loop;
  }
  return { events, runs: runs.size };
}

async function untilCaughtUp(bus: Bus, spec: DurableSpec): Promise<void> {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, CAUGHT_UP_POLL_MS));
    // Not found until the loop has recreated the consumer.
    const info = await bus.jsm.consumers.info(spec.stream, spec.durable).catch((e: unknown) => {
      if (isNotFound(e)) return undefined;
      throw e;
    });
    if (info && info.num_pending === 0 && info.num_ack_pending === 0) return;
  }
}
