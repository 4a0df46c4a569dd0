import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { serveQueries, type Bus } from '@spindle/bus';
import { approvalQuerySchemas, SpindleError, type ApprovalQueryOp, type ApprovalQueryResults } from '@spindle/contracts';
import { BUS, LOGGER } from '@spindle/service-kit';
import type { Logger } from '@spindle/telemetry';
import type { z } from 'zod';
import { RequestsReader } from './requests.reader';

/** How long a read-your-writes query waits for its seq before answering with what there is. */
const WAIT_FOR_SEQ_MS = 3_000;
const POLL_MS = 25;

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

  /** Bounded: a seq that never comes (a wrong number, a stalled log) costs the caller 3 s, not forever. */
  private async waitForSeq(runId: string, seq: number | undefined): Promise<void> {
    if (seq === undefined) return;
    const deadline = Date.now() + WAIT_FOR_SEQ_MS;
    while ((await this.reader.lastAppliedSeq(runId)) < seq && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}

function parse<Op extends ApprovalQueryOp>(op: Op, payload: unknown): z.output<(typeof approvalQuerySchemas)[Op]> {
  const parsed = approvalQuerySchemas[op].safeParse(payload);
  if (parsed.success) return parsed.data as z.output<(typeof approvalQuerySchemas)[Op]>;
  const issues = parsed.error.issues.map((i) => ({ field: i.path.join('.') || '(body)', message: i.message }));
  throw new SpindleError('validation_failed', `${op}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`, { issues });
}
