import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { serveQueries, type Bus } from '@spindle/bus';
import { SpindleError, traceQuerySchemas, type TraceQueryOp, type TraceQueryResults } from '@spindle/contracts';
import { BUS, LOGGER } from '@spindle/service-kit';
import type { Logger } from '@spindle/telemetry';
import type { z } from 'zod';
import { TraceRepository } from './trace.repository';

/** How long a read-your-writes query waits for its seq before answering with what there is. */
const WAIT_FOR_SEQ_MS = 3_000;
const POLL_MS = 25;

/** Answers `svc.trace.getRun | getTrace | listRuns` over NATS request/reply. */
@Injectable()
export class TraceQueriesHandler implements OnModuleInit, OnModuleDestroy {
  private subscriptions: ReturnType<typeof serveQueries> = [];

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(TraceRepository) private readonly repository: TraceRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    this.subscriptions = serveQueries(
      this.bus,
      'trace',
      {
        getRun: async (payload): Promise<TraceQueryResults['getRun']> => {
          const q = parse('getRun', payload);
          await this.waitForSeq(q.runId, q.waitForSeq);
          return { run: await this.repository.getRun(q.runId) };
        },
        getTrace: async (payload): Promise<TraceQueryResults['getTrace']> => {
          const q = parse('getTrace', payload);
          await this.waitForSeq(q.runId, q.waitForSeq);
          return { trace: await this.repository.getTrace(q.runId) };
        },
        listRuns: async (payload): Promise<TraceQueryResults['listRuns']> => this.repository.listRuns(parse('listRuns', payload)),
      },
      (e) => this.logger.error({ err: e }, 'trace query failed'),
    );
  }

  onModuleDestroy(): void {
    for (const s of this.subscriptions) s.unsubscribe();
  }

  /** Bounded: a seq that never comes (a wrong number, a stalled log) costs the caller 3 s, not forever. */
  private async waitForSeq(runId: string, seq: number | undefined): Promise<void> {
    if (seq === undefined) return;
    const deadline = Date.now() + WAIT_FOR_SEQ_MS;
    while ((await this.repository.lastAppliedSeq(runId)) < seq && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}

function parse<Op extends TraceQueryOp>(op: Op, payload: unknown): z.output<(typeof traceQuerySchemas)[Op]> {
  const parsed = traceQuerySchemas[op].safeParse(payload);
  if (parsed.success) return parsed.data as z.output<(typeof traceQuerySchemas)[Op]>;
  const issues = parsed.error.issues.map((i) => ({ field: i.path.join('.') || '(body)', message: i.message }));
  throw new SpindleError('validation_failed', `${op}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`, { issues });
}
