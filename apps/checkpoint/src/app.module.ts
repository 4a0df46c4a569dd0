import { Module, type DynamicModule } from '@nestjs/common';
import { projectionProgressMigrations } from '@spindle/db';
import { InfraModule, RunProgressConsumer, type ServiceConfig } from '@spindle/service-kit';

@Module({})
export class CheckpointModule {
  static forRoot(config: ServiceConfig): DynamicModule {
    return {
      module: CheckpointModule,
      imports: [InfraModule.forRoot({ config, database: { owner: 'checkpoint', migrations: projectionProgressMigrations } })],
      providers: [RunProgressConsumer],
    };
  }
}
