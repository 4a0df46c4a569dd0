import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Bus, Subscription } from '@spindle/bus';
import { checkpointQuerySchemas, type CheckpointQueryResults } from '@spindle/contracts';
import type { CheckpointTables } from '@spindle/db';
import { appliedSeq, eraseRunHandler, ProjectionRunner, progressTables, serveProjectionQueries } from '@spindle/projection-kit';
import { BUS, LOGGER } from '@spindle/service-kit';
import { DATABASE } from '@spindle/service-db';
import type { Logger } from '@spindle/telemetry';
import type { Kysely } from 'kysely';
import { CheckpointReader } from './checkpoint.reader';

/** Answers `svc.checkpoint.listCheckpoints | getCheckpoint | getNodeResult` over NATS request/reply. */
@Injectable()
export class CheckpointQueriesHandler implements OnModuleInit, OnModuleDestroy {
  private subscriptions: Subscription[] = [];

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATABASE) private readonly db: Kysely<CheckpointTables>,
    @Inject(CheckpointReader) private readonly reader: CheckpointReader,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(ProjectionRunner) private readonly runner: ProjectionRunner<CheckpointTables>,
  ) {}

  onModuleInit(): void {
    this.subscriptions = serveProjectionQueries<typeof checkpointQuerySchemas, CheckpointQueryResults>(
      this.bus,
      'checkpoint',
      checkpointQuerySchemas,
      {
        listCheckpoints: async (q) => ({ checkpoints: await this.reader.listCheckpoints(q.runId) }),
        getCheckpoint: async (q) => ({
          checkpoint: await this.reader.getCheckpoint(q.runId, q.checkpointId),
          expiredBefore: await this.reader.expiredBefore(),
        }),
        getNodeResult: async (q) => ({ result: await this.reader.getNodeResult(q.keys) }),
        eraseRun: eraseRunHandler(this.runner, (runId) => appliedSeq(progressTables(this.db), runId)),
      },
      { appliedSeq: (runId) => appliedSeq(progressTables(this.db), runId), logger: this.logger },
    );
  }

  onModuleDestroy(): void {
    for (const s of this.subscriptions) s.unsubscribe();
  }
}
