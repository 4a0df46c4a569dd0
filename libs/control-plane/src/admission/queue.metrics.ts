import type { GatewayTables } from '@spindle/db';
import { registerWaitingGauges } from '@spindle/telemetry';
import type { Kysely } from 'kysely';
import type { Registry } from 'prom-client';
import type { AdmissionRepository } from './admission.repository';

/**
 * The run queue at `/metrics`, read from the admission table when scraped: runs `waiting` for
 * their tenant's room and runs `admitted` but not yet started by a runner, and how long the
 * oldest of each has been queued. The dispatcher shows them (every replica the same figures, from one table: take the max).
 */
export function registerQueueMetrics(registry: Registry, db: Kysely<GatewayTables>, rows: AdmissionRepository): void {
  registerWaitingGauges(registry, {
    count: {
      name: 'spindle_run_queue_depth',
      help: 'Runs queued and not yet running: waiting (for their tenant to have room) or admitted (for a runner to take them).',
    },
    oldestAge: {
      name: 'spindle_run_queue_oldest_age_seconds',
      help: 'How long the oldest run in each queue state has been queued (0 when the queue is empty).',
    },
    label: 'state',
    values: ['waiting', 'admitted'],
    read: async () => new Map((await rows.queueDepth(db)).map((d) => [d.state, d])),
  });
}
