import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Bus, Subscription } from '@spindle/bus';
import { traceQuerySchemas, type TraceQueryResults } from '@spindle/contracts';
import type { TraceTables } from '@spindle/db';
import { appliedSeq, eraseRunHandler, ProjectionRunner, progressTables, serveProjectionQueries } from '@spindle/projection-kit';
import { BUS, LOGGER } from '@spindle/service-kit';
import { DATABASE } from '@spindle/service-db';
import type { Logger } from '@spindle/telemetry';
import type { Kysely } from 'kysely';
import { runsOverview } from './runs-overview.query';
import { ScoreRepository } from './score.repository';
import { TraceRepository } from './trace.repository';

/** Answers the trace recorder's reads (`svc.trace.getRun | getTrace | listRuns | …`) and its score writes over NATS request/reply. */
@Injectable()
export class TraceQueriesHandler implements OnModuleInit, OnModuleDestroy {
  private subscriptions: Subscription[] = [];

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATABASE) private readonly db: Kysely<TraceTables>,
    @Inject(TraceRepository) private readonly repository: TraceRepository,
    @Inject(ScoreRepository) private readonly scores: ScoreRepository,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(ProjectionRunner) private readonly runner: ProjectionRunner<TraceTables>,
  ) {}

  onModuleInit(): void {
    this.subscriptions = serveProjectionQueries<typeof traceQuerySchemas, TraceQueryResults>(
      this.bus,
      'trace',
      traceQuerySchemas,
      {
        getRun: async (q) => ({ run: await this.repository.getRun(q.runId) }),
        getTrace: async (q) => ({ trace: await this.repository.getTrace(q.runId) }),
        listRuns: (q) => this.repository.listRuns(q),
        lineage: (q) => this.repository.lineage(q.tenant, q.runId),
        tenantUsage: (q) => this.repository.tenantUsage(q.tenant, q.since),
        overview: (q) => runsOverview(this.db, q),
        eraseRun: eraseRunHandler(this.runner, (runId) => appliedSeq(progressTables(this.db), runId)),
        recordScore: (q) => this.scores.record(q),
        listScores: (q) => this.scores.list(q),
        putScoreConfig: (q) => this.scores.configs.put(q),
        deleteScoreConfig: (q) => this.scores.configs.delete(q),
        listScoreConfigs: (q) => this.scores.configs.list(q),
        setScoreSettings: (q) => this.scores.configs.setStrict(q),
      },
      { appliedSeq: (runId) => appliedSeq(progressTables(this.db), runId), logger: this.logger },
    );
  }

  onModuleDestroy(): void {
    for (const s of this.subscriptions) s.unsubscribe();
  }
}
