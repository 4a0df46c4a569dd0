import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { serveQueries, type Bus } from '@spindle/bus';
import { traceQuerySchemas, type TraceQueryOp, type TraceQueryResults } from '@spindle/contracts';
import { BUS, LOGGER, parseQuery, waitForAppliedSeq } from '@spindle/service-kit';
import type { Logger } from '@spindle/telemetry';
import { TraceRepository } from './trace.repository';

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

  private waitForSeq(runId: string, seq: number | undefined): Promise<void> {
    return waitForAppliedSeq((id) => this.repository.lastAppliedSeq(id), runId, seq);
  }
}

function parse<Op extends TraceQueryOp>(op: Op, payload: unknown) {
  return parseQuery(traceQuerySchemas, op, payload);
}
