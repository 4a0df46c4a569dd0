import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { serveQueries, type Bus } from '@spindle/bus';
import { approvalQuerySchemas, type ApprovalQueryOp, type ApprovalQueryResults } from '@spindle/contracts';
import { BUS, LOGGER, parseQuery, waitForAppliedSeq } from '@spindle/service-kit';
import type { Logger } from '@spindle/telemetry';
import { RequestsReader } from './requests.reader';

/** Answers `svc.approval.listRequests` over NATS request/reply. */
@Injectable()
export class ApprovalQueriesHandler implements OnModuleInit, OnModuleDestroy {
  private subscriptions: ReturnType<typeof serveQueries> = [];

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(RequestsReader) private readonly reader: RequestsReader,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    this.subscriptions = serveQueries(
      this.bus,
      'approval',
      {
        listRequests: async (payload): Promise<ApprovalQueryResults['listRequests']> => {
          const { waitForSeq, ...filter } = parse('listRequests', payload);
          // Progress is per run, so only a query about one run can wait for its seq.
          if (filter.runId !== undefined) await this.waitForSeq(filter.runId, waitForSeq);
          return this.reader.listRequests(filter);
        },
      },
      (e) => this.logger.error({ err: e }, 'approval query failed'),
    );
  }

  onModuleDestroy(): void {
    for (const s of this.subscriptions) s.unsubscribe();
  }

  private waitForSeq(runId: string, seq: number | undefined): Promise<void> {
    return waitForAppliedSeq((id) => this.reader.lastAppliedSeq(id), runId, seq);
  }
}

function parse<Op extends ApprovalQueryOp>(op: Op, payload: unknown) {
  return parseQuery(approvalQuerySchemas, op, payload);
}
