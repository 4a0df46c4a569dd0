import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Bus, Subscription } from '@spindle/bus';
import { dispatcherQuerySchemas, type DispatcherQueryResults } from '@spindle/contracts';
import type { GatewayTables } from '@spindle/db';
import { appliedSeq, eraseRunHandler, ProjectionRunner, progressTables, serveProjectionQueries } from '@spindle/projection-kit';
import { BUS, LOGGER, type PeriodicLoop } from '@spindle/service-kit';
import { DATABASE } from '@spindle/service-db';
import type { Logger } from '@spindle/telemetry';
import { KnowledgeService } from '@spindle/knowledge';
import type { Kysely } from 'kysely';
import { SCHEDULE_LOOP } from './dispatch-loops.providers';

/**
 * Answers `svc.dispatcher.*` over NATS request/reply: `eraseRun` (the control plane's rows of a
 * run, once its projection has applied the run's last event) and `fireDue` (a schedule's manual
 * trigger, made now rather than at the next tick), `ingestDocument` (a stored document ingested
 * while the gateway waits) and `retrieve` (a run's or the API's search of a knowledge base).
 */
@Injectable()
export class DispatcherQueriesHandler implements OnModuleInit, OnModuleDestroy {
  private subscriptions: Subscription[] = [];

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATABASE) private readonly db: Kysely<GatewayTables>,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(ProjectionRunner) private readonly runner: ProjectionRunner<GatewayTables>,
    @Inject(SCHEDULE_LOOP) private readonly schedules: PeriodicLoop,
    @Inject(KnowledgeService) private readonly knowledge: KnowledgeService,
  ) {}

  onModuleInit(): void {
    const applied = (runId: string) => appliedSeq(progressTables(this.db), runId);
    this.subscriptions = serveProjectionQueries<typeof dispatcherQuerySchemas, DispatcherQueryResults>(
      this.bus,
      'dispatcher',
      dispatcherQuerySchemas,
      {
        eraseRun: eraseRunHandler(this.runner, applied),
        fireDue: async () => {
          await this.schedules.tick();
          return { fired: true };
        },
        ingestDocument: async (q) => ({ document: await this.knowledge.ingest(q.tenant, q.documentId) }),
        retrieve: (q) => this.knowledge.retrieve(q),
      },
      { appliedSeq: applied, logger: this.logger },
    );
  }

  onModuleDestroy(): void {
    for (const s of this.subscriptions) s.unsubscribe();
  }
}
