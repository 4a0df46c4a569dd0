import { Module, type DynamicModule } from '@nestjs/common';
import { gatewayMigrations } from '@spindle/db';
import { DatabaseModule } from '@spindle/service-db';
import { InfraModule } from '@spindle/service-kit';
import { controlPlaneProviders } from './control-plane.providers';
import type { DispatcherConfig } from './dispatcher.config';
import { DispatcherQueriesHandler } from './dispatcher-queries.handler';
import { dispatchLoopProviders } from './dispatch-loops.providers';
import { knowledgeProviders } from './knowledge.providers';

/**
 * The control plane's background half: the projection of the log that admission, threads and
 * webhooks fold, and the passes that act on it (admit queued runs, start threads' next runs, fire
 * schedules, deliver webhooks). Its tables sit in the gateway's schema, because the request path
 * writes them too (a thread start under the thread's lock, a run queued and admitted in one
 * statement); both processes migrate that schema, under the migrator's lock.
 */
@Module({})
export class DispatcherModule {
  static forRoot(config: DispatcherConfig): DynamicModule {
    return {
      module: DispatcherModule,
      imports: [InfraModule.forRoot({ config }), DatabaseModule.forRoot({ config, owner: 'gateway', migrations: gatewayMigrations })],
      providers: [
        ...controlPlaneProviders(config),
        ...dispatchLoopProviders(config),
        ...knowledgeProviders(config),
        DispatcherQueriesHandler,
      ],
    };
  }
}
