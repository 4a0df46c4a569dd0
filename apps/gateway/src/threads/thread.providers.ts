import type { Provider } from '@nestjs/common';
import type { Bus } from '@spindle/bus';
import type { GatewayTables } from '@spindle/db';
import { DATABASE } from '@spindle/service-db';
import { BUS, LOGGER, PeriodicLoop } from '@spindle/service-kit';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../gateway.config';
import { RunCanceller } from '../runs/run-canceller.service';
import { RunStarter } from '../runs/run-starter.service';
import { WorkflowCatalogRepository } from '../workflows/workflow-catalog.repository';
import { ThreadRepository } from '@spindle/control-plane';
import { ThreadRuns } from './thread-runs.service';

const THREAD_DISPATCH_LOOP = Symbol('THREAD_DISPATCH_LOOP');

/** Threads: their tables, their runs, and the pass that starts a thread's next run when its turn comes. */
export function threadProviders(config: GatewayConfig): Provider[] {
  return [
    { provide: ThreadRepository, inject: [DATABASE], useFactory: (db: Kysely<GatewayTables>) => new ThreadRepository(db) },
    {
      provide: ThreadRuns,
      inject: [DATABASE, ThreadRepository, RunStarter, RunCanceller, WorkflowCatalogRepository, BUS, LOGGER],
      useFactory: (
        db: Kysely<GatewayTables>,
        threads: ThreadRepository,
        starter: RunStarter,
        canceller: RunCanceller,
        catalog: WorkflowCatalogRepository,
        bus: Bus,
        logger: Logger,
      ) => new ThreadRuns(db, threads, starter, canceller, catalog, bus, logger, config.projectionWaitMs),
    },
    {
      provide: THREAD_DISPATCH_LOOP,
      inject: [ThreadRuns, LOGGER],
      useFactory: (runs: ThreadRuns, logger: Logger) =>
        new PeriodicLoop({ name: 'thread dispatch', everyMs: 2_000, pass: () => runs.dispatchReady(), logger }),
    },
  ];
}
