import { Module, type DynamicModule } from '@nestjs/common';
import { readRunLog, type Bus } from '@spindle/bus';
import { approvalMigrations, type ApprovalTables } from '@spindle/db';
import { BUS, DATABASE, InfraModule, LOGGER, type ServiceConfig } from '@spindle/service-kit';
import type { Logger } from '@spindle/telemetry';
import type { Kysely } from 'kysely';
import { APPROVAL_CONFIG, type ApprovalConfig } from './approval.config';
import { ApprovalQueriesHandler } from './approval-queries.handler';
import { RequestTimeoutSweeper } from './request-timeout.sweeper';
import { RequestsProjectionConsumer } from './requests-projection.consumer';
import { RequestsProjection } from './requests.projection';
import { RequestsReader } from './requests.reader';

/** The approval service: projects every request for a person, serves the inbox, times out expired requests. */
@Module({})
export class ApprovalModule {
  static forRoot(config: ServiceConfig, approval: ApprovalConfig): DynamicModule {
    return {
      module: ApprovalModule,
      imports: [InfraModule.forRoot({ config, database: { owner: 'approval', migrations: approvalMigrations } })],
      providers: [
        { provide: APPROVAL_CONFIG, useValue: approval },
        { provide: RequestsReader, inject: [DATABASE], useFactory: (db: Kysely<ApprovalTables>) => new RequestsReader(db) },
        {
          provide: RequestsProjection,
          inject: [DATABASE, BUS, LOGGER],
          useFactory: (db: Kysely<ApprovalTables>, bus: Bus, logger: Logger) =>
            new RequestsProjection(db, async (runId, afterSeq) => (await readRunLog(bus, runId, afterSeq)).events, logger),
        },
        RequestsProjectionConsumer,
        ApprovalQueriesHandler,
        RequestTimeoutSweeper,
      ],
    };
  }
}
