import { Module, type DynamicModule } from '@nestjs/common';
import type { Bus } from '@spindle/bus';
import { checkpointMigrations, type CheckpointTables } from '@spindle/db';
import { PROJECTION_GATHER_MS, ProjectionRunner } from '@spindle/projection-kit';
import { BUS, InfraModule, LOGGER, METRICS, type ServiceConfig } from '@spindle/service-kit';
import type { Registry } from 'prom-client';
import { DATABASE, DatabaseModule } from '@spindle/service-db';
import type { Logger } from '@spindle/telemetry';
import type { Kysely } from 'kysely';
import { CheckpointProjection } from './checkpoint.projection';
import { CheckpointQueriesHandler } from './checkpoint-queries.handler';
import { CheckpointReader } from './checkpoint.reader';
import { CHECKPOINT_SETTINGS, type CheckpointSettings } from './checkpoint-settings';
import { ExpiredRowsPurger } from './expired-rows.purger';

/** The checkpoint service: projects checkpoints and cached node results, answers for them, expires them. */
@Module({})
export class CheckpointModule {
  static forRoot(config: ServiceConfig, settings: CheckpointSettings): DynamicModule {
    return {
      module: CheckpointModule,
      imports: [InfraModule.forRoot({ config }), DatabaseModule.forRoot({ config, owner: 'checkpoint', migrations: checkpointMigrations })],
      providers: [
        { provide: CHECKPOINT_SETTINGS, useValue: settings },
        {
          provide: CheckpointReader,
          inject: [DATABASE],
          useFactory: (db: Kysely<CheckpointTables>) => new CheckpointReader(db, settings.ttlHours),
        },
        {
          provide: ProjectionRunner,
          inject: [BUS, DATABASE, LOGGER, METRICS],
          useFactory: (bus: Bus, db: Kysely<CheckpointTables>, logger: Logger, metrics: Registry) =>
            new ProjectionRunner<CheckpointTables>(
              bus,
              db,
              new CheckpointProjection(bus.names.durables.checkpoint, settings.ttlHours),
              logger,
              { lingerMs: 50, gatherMs: PROJECTION_GATHER_MS, metrics, retentionMs: config.retentionMs },
            ),
        },
        CheckpointQueriesHandler,
        ExpiredRowsPurger,
      ],
    };
  }
}
