import { Module, type DynamicModule } from '@nestjs/common';
import { projectionProgressMigrations } from '@spindle/db';
import { InfraModule, RunProgressConsumer, type ServiceConfig } from '@spindle/service-kit';

@Module({})
export class ApprovalModule {
  static forRoot(config: ServiceConfig): DynamicModule {
    return {
      module: ApprovalModule,
      imports: [InfraModule.forRoot({ config, database: { owner: 'approval', migrations: projectionProgressMigrations } })],
      providers: [RunProgressConsumer],
    };
  }
}
