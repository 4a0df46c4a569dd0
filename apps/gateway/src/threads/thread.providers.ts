import type { Provider } from '@nestjs/common';
import type { Bus } from '@spindle/bus';
import type { GatewayTables } from '@spindle/db';
import { DATABASE } from '@spindle/service-db';
import { BUS, LOGGER, PeriodicLoop } from '@spindle/service-kit';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../gateway.config';
import { RunCanceller } from '../runs/run-canceller.service';
import { ThreadDispatcher, ThreadRepository, RunStarter, WorkflowCatalogRepository } from '@spindle/control-plane';
import { ThreadRuns } from './thread-runs.service';

/** The pass that starts threads' next runs: on a 2 s tick, and ticked by projection batches that end runs. */
export const THREAD_DISPATCH_LOOP = Symbol('THREAD_DISPATCH_LOOP');

/** Threads: their tables, their runs, and the pass that starts a thread's next run when its turn comes. */
export function threadProviders(config: GatewayConfig): Provider[] {
  return [
    { provide: ThreadRepository, inject: [DATABASE], useFactory: (db: Kysely<GatewayTables>) => new ThreadRepository(db) },
    {
      provide: ThreadDispatcher,
      inject: [DATABASE, ThreadRepository, RunStarter, BUS, LOGGER],
      useFactory: (db: Kysely<GatewayTables>, threads: ThreadRepository, starter: RunStarter, bus: Bus, logger: Logger) =>
        new ThreadDispatcher(db, threads, starter, bus, logger, config.projectionWaitMs),
    },
    {
      provide: ThreadRuns,
      inject: [DATABASE, ThreadRepository, ThreadDispatcher, RunCanceller, WorkflowCatalogRepository, BUS, LOGGER],
      useFactory: (
        db: Kysely<GatewayTables>,
        threads: ThreadRepository,
        dispatcher: ThreadDispatcher,
        canceller: RunCanceller,
        catalog: WorkflowCatalogRepository,
        bus: Bus,
        logger: Logger,
      ) => new ThreadRuns(db, threads, dispatcher, canceller, catalog, bus, logger),
    },
    {
      provide: THREAD_DISPATCH_LOOP,
      inject: [ThreadDispatcher, LOGGER],
      useFactory: (dispatcher: ThreadDispatcher, logger: Logger) =>
        new PeriodicLoop({ name: 'thread dispatch', everyMs: 2_000, pass: () => dispatcher.dispatchReady(), logger }),
    },
  ];
}
