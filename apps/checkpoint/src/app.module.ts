import { Module, type DynamicModule } from '@nestjs/common';
import { checkpointMigrations, type CheckpointTables } from '@spindle/db';
import { DATABASE, InfraModule, type ServiceConfig } from '@spindle/service-kit';
import type { Kysely } from 'kysely';
import { CheckpointProjectionConsumer } from './checkpoint-projection.consumer';
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
      imports: [InfraModule.forRoot({ config, database: { owner: 'checkpoint', migrations: checkpointMigrations } })],
      providers: [
        { provide: CHECKPOINT_SETTINGS, useValue: settings },
        { provide: CheckpointReader, inject: [DATABASE], useFactory: (db: Kysely<CheckpointTables>) => new CheckpointReader(db, settings.ttlHours) },
        CheckpointProjectionConsumer,
        CheckpointQueriesHandler,
        ExpiredRowsPurger,
      ],
    };
  }
}
