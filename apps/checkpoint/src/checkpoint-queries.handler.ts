import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { serveQueries, type Bus } from '@spindle/bus';
import { checkpointQuerySchemas, SpindleError, type CheckpointQueryOp, type CheckpointQueryResults } from '@spindle/contracts';
import { BUS, LOGGER } from '@spindle/service-kit';
import type { Logger } from '@spindle/telemetry';
import type { z } from 'zod';
import { CheckpointReader } from './checkpoint.reader';

/** How long a read-your-writes query waits for its seq before answering with what there is. */
const WAIT_FOR_SEQ_MS = 3_000;
const POLL_MS = 25;

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

  /** Bounded: a seq that never comes (a wrong number, a stalled log) costs the caller 3 s, not forever. */
  private async waitForSeq(runId: string, seq: number | undefined): Promise<void> {
    if (seq === undefined) return;
    const deadline = Date.now() + WAIT_FOR_SEQ_MS;
    while ((await this.reader.lastAppliedSeq(runId)) < seq && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}

function parse<Op extends CheckpointQueryOp>(op: Op, payload: unknown): z.output<(typeof checkpointQuerySchemas)[Op]> {
  const parsed = checkpointQuerySchemas[op].safeParse(payload);
  if (parsed.success) return parsed.data as z.output<(typeof checkpointQuerySchemas)[Op]>;
  const issues = parsed.error.issues.map((i) => ({ field: i.path.join('.') || '(body)', message: i.message }));
  throw new SpindleError('validation_failed', `${op}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`, { issues });
}
