import type { Provider } from '@nestjs/common';
import type { Bus } from '@spindle/bus';
import type { GatewayTables } from '@spindle/db';
import { DATABASE, repositoryProvider } from '@spindle/service-db';
import { BUS, LOGGER } from '@spindle/service-kit';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../gateway.config';
import {
  FileLibrary,
  ThreadDispatcher,
  ThreadRepository,
  RunStarter,
  WorkflowCatalogRepository,
  RunCanceller,
} from '@spindle/control-plane';
import { ThreadRuns } from './thread-runs.service';

/**
 * Threads on the request path: a start follows its multitask strategy and starts the run at once
 * when its turn has come; the dispatcher starts the rest.
 */
export function threadProviders(config: GatewayConfig): Provider[] {
  return [
    repositoryProvider(ThreadRepository),
    {
      provide: ThreadDispatcher,
      inject: [DATABASE, ThreadRepository, RunStarter, BUS, LOGGER],
      useFactory: (db: Kysely<GatewayTables>, threads: ThreadRepository, starter: RunStarter, bus: Bus, logger: Logger) =>
        new ThreadDispatcher(db, threads, starter, bus, logger, config.projectionWaitMs),
    },
    {
      provide: ThreadRuns,
      inject: [DATABASE, ThreadRepository, ThreadDispatcher, RunCanceller, WorkflowCatalogRepository, BUS, LOGGER, FileLibrary],
      useFactory: (
        db: Kysely<GatewayTables>,
        threads: ThreadRepository,
        dispatcher: ThreadDispatcher,
        canceller: RunCanceller,
        catalog: WorkflowCatalogRepository,
        bus: Bus,
        logger: Logger,
        files: FileLibrary,
      ) => new ThreadRuns(db, threads, dispatcher, canceller, catalog, bus, logger, files),
    },
  ];
}
