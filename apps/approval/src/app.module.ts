import { Module, type DynamicModule } from '@nestjs/common';
import type { Bus } from '@spindle/bus';
import { approvalMigrations, type ApprovalTables } from '@spindle/db';
import { PROJECTION_GATHER_MS, ProjectionRunner } from '@spindle/projection-kit';
import { BUS, InfraModule, LOGGER, METRICS, type ServiceConfig } from '@spindle/service-kit';
import type { Registry } from 'prom-client';
import { DATABASE, DatabaseModule } from '@spindle/service-db';
import type { Logger } from '@spindle/telemetry';
import type { Kysely } from 'kysely';
import { APPROVAL_CONFIG, type ApprovalConfig } from './approval.config';
import { ApprovalQueriesHandler } from './approval-queries.handler';
import { RequestTimeoutSweeper } from './request-timeout.sweeper';
import { RequestsProjection } from './requests.projection';
import { RequestsReader } from './requests.reader';
import { registerPendingRequestsMetrics } from './pending-requests.metrics';

/** The approval service: projects every request for a person, serves the inbox, times out expired requests. */
@Module({})
export class ApprovalModule {
  static forRoot(config: ServiceConfig, approval: ApprovalConfig): DynamicModule {
    return {
      module: ApprovalModule,
      imports: [InfraModule.forRoot({ config }), DatabaseModule.forRoot({ config, owner: 'approval', migrations: approvalMigrations })],
      providers: [
        { provide: APPROVAL_CONFIG, useValue: approval },
        {
          provide: RequestsReader,
          inject: [DATABASE, METRICS],
          useFactory: (db: Kysely<ApprovalTables>, metrics: Registry) => {
            const reader = new RequestsReader(db);
            registerPendingRequestsMetrics(metrics, reader);
            return reader;
          },
        },
        {
          provide: ProjectionRunner,
          inject: [BUS, DATABASE, LOGGER, METRICS],
          useFactory: (bus: Bus, db: Kysely<ApprovalTables>, logger: Logger, metrics: Registry) =>
            new ProjectionRunner<ApprovalTables>(bus, db, new RequestsProjection(bus.names.durables.approval), logger, {
              lingerMs: 50,
              gatherMs: PROJECTION_GATHER_MS,
              metrics,
              retentionMs: config.retentionMs,
            }),
        },
        ApprovalQueriesHandler,
        RequestTimeoutSweeper,
      ],
    };
  }
}
