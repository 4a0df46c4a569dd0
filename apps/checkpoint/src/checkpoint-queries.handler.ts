import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { serveQueries, type Bus } from '@spindle/bus';
import { checkpointQuerySchemas, type CheckpointQueryOp, type CheckpointQueryResults } from '@spindle/contracts';
import { BUS, LOGGER, parseQuery, waitForAppliedSeq } from '@spindle/service-kit';
import type { Logger } from '@spindle/telemetry';
import { CheckpointReader } from './checkpoint.reader';

/** Answers `svc.checkpoint.listCheckpoints | getCheckpoint | getNodeResult` over NATS request/reply. */
@Injectable()
export class CheckpointQueriesHandler implements OnModuleInit, OnModuleDestroy {
  private subscriptions: ReturnType<typeof serveQueries> = [];

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(CheckpointReader) private readonly reader: CheckpointReader,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    this.subscriptions = serveQueries(
      this.bus,
      'checkpoint',
      {
        listCheckpoints: async (payload): Promise<CheckpointQueryResults['listCheckpoints']> => {
          const q = parse('listCheckpoints', payload);
          await this.waitForSeq(q.runId, q.waitForSeq);
          return { checkpoints: await this.reader.listCheckpoints(q.runId) };
        },
        getCheckpoint: async (payload): Promise<CheckpointQueryResults['getCheckpoint']> => {
          const q = parse('getCheckpoint', payload);
          await this.waitForSeq(q.runId, q.waitForSeq);
          return { checkpoint: await this.reader.getCheckpoint(q.runId, q.checkpointId) };
        },
        getNodeResult: async (payload): Promise<CheckpointQueryResults['getNodeResult']> => ({ result: await this.reader.getNodeResult(parse('getNodeResult', payload).keys) }),
      },
      (e) => this.logger.error({ err: e }, 'checkpoint query failed'),
    );
  }

  onModuleDestroy(): void {
    for (const s of this.subscriptions) s.unsubscribe();
  }

  private waitForSeq(runId: string, seq: number | undefined): Promise<void> {
    return waitForAppliedSeq((id) => this.reader.lastAppliedSeq(id), runId, seq);
  }
}

function parse<Op extends CheckpointQueryOp>(op: Op, payload: unknown) {
  return parseQuery(checkpointQuerySchemas, op, payload);
}
