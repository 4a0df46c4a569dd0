import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Bus, Subscription } from '@spindle/bus';
import { approvalQuerySchemas, type ApprovalQueryResults } from '@spindle/contracts';
import type { ApprovalTables } from '@spindle/db';
import { appliedSeq, eraseRunHandler, ProjectionRunner, progressTables, serveProjectionQueries } from '@spindle/projection-kit';
import { BUS, LOGGER } from '@spindle/service-kit';
import { DATABASE } from '@spindle/service-db';
import type { Logger } from '@spindle/telemetry';
import type { Kysely } from 'kysely';
import { RequestsReader } from './requests.reader';

/** Answers `svc.approval.listRequests` over NATS request/reply (a query about one run may wait for its seq). */
@Injectable()
export class ApprovalQueriesHandler implements OnModuleInit, OnModuleDestroy {
  private subscriptions: Subscription[] = [];

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATABASE) private readonly db: Kysely<ApprovalTables>,
    @Inject(RequestsReader) private readonly reader: RequestsReader,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(ProjectionRunner) private readonly runner: ProjectionRunner<ApprovalTables>,
  ) {}

  onModuleInit(): void {
    this.subscriptions = serveProjectionQueries<typeof approvalQuerySchemas, ApprovalQueryResults>(
      this.bus,
      'approval',
      approvalQuerySchemas,
      {
        listRequests: ({ waitForSeq: _seq, ...filter }) => this.reader.listRequests(filter),
        pendingAges: (q) => this.reader.pendingAges(q.tenant, q.workflow),
        eraseRun: eraseRunHandler(this.runner, (runId) => appliedSeq(progressTables(this.db), runId)),
      },
      { appliedSeq: (runId) => appliedSeq(progressTables(this.db), runId), logger: this.logger },
    );
  }

  onModuleDestroy(): void {
    for (const s of this.subscriptions) s.unsubscribe();
  }
}
