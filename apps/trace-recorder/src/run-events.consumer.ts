import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { ensureDurable, pullBatches, type Bus } from '@spindle/bus';
import { BUS, LOGGER } from '@spindle/service-kit';
import type { Logger } from '@spindle/telemetry';
import { RunEventsProjector } from './run-events.projector';
import { BATCH_SIZE, traceRecorderDurable } from './trace-recorder.durable';

/** Keeps the projection up with the log: the durable pull loop, from module init to destroy. */
@Injectable()
export class RunEventsConsumer implements OnModuleInit, OnModuleDestroy {
  private readonly stopping = new AbortController();
  private loop: Promise<void> = Promise.resolve();

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(RunEventsProjector) private readonly projector: RunEventsProjector,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onModuleInit(): Promise<void> {
    const spec = traceRecorderDurable(this.bus.names);
    // Fail start-up, not later, when the consumer cannot be created.
    await ensureDurable(this.bus, spec);
    this.loop = pullBatches(this.bus, spec, async (batch) => void (await this.projector.handle(batch)), {
      signal: this.stopping.signal,
      batchSize: BATCH_SIZE,
      // Batches a trickle of events; read-your-writes waits cover the delay.
      lingerMs: 20,
      onError: (e) => this.logger.error({ err: e }, 'run events batch failed; retrying'),
    }).catch((e: unknown) => this.logger.fatal({ err: e }, 'run events consumer stopped'));
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping.abort();
    // The current batch commits and acks before the bus closes.
    await this.loop;
  }
}
