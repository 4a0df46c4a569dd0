import { Module, type DynamicModule } from '@nestjs/common';
import type { Bus } from '@spindle/bus';
import { traceMigrations, type TraceTables } from '@spindle/db';
import { BUS, DATABASE, InfraModule, LOGGER, METRICS, type ServiceConfig } from '@spindle/service-kit';
import type { Logger } from '@spindle/telemetry';
import type { Kysely } from 'kysely';
import type { Registry } from 'prom-client';
import { RunEventsConsumer } from './run-events.consumer';
import { RunEventsProjector } from './run-events.projector';
import { TraceQueriesHandler } from './trace-queries.handler';
import { TraceMetrics } from './trace.metrics';
import { TraceRepository } from './trace.repository';

/** The trace recorder: projects the run log into Postgres and answers trace queries. */
@Module({})
export class AppModule {
  static forConfig(config: ServiceConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [InfraModule.forRoot({ config, database: { owner: 'trace', migrations: traceMigrations } })],
      providers: [
        { provide: TraceRepository, inject: [DATABASE], useFactory: (db: Kysely<TraceTables>) => new TraceRepository(db) },
        { provide: TraceMetrics, inject: [METRICS], useFactory: (registry: Registry) => new TraceMetrics(registry) },
        {
          provide: RunEventsProjector,
          inject: [BUS, TraceRepository, TraceMetrics, LOGGER],
          useFactory: (bus: Bus, repository: TraceRepository, metrics: TraceMetrics, logger: Logger) => new RunEventsProjector(bus, repository, metrics, logger),
        },
        RunEventsConsumer,
        TraceQueriesHandler,
      ],
    };
  }
}
