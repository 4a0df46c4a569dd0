import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Bus } from '@spindle/bus';
import { recordProgress, type ProjectionProgressTables } from '@spindle/db';
import { BUS, DATABASE, LOGGER, RunLogProjector } from '@spindle/service-kit';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';

/**
 * The checkpoint service's durable view of every run's log. For now it records how far each run's
 * log has been applied; checkpoints and the node result cache are projected here next.
 */
@Injectable()
export class RunProgressConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly projector: RunLogProjector;

  constructor(@Inject(BUS) bus: Bus, @Inject(LOGGER) logger: Logger, @Inject(DATABASE) db: Kysely<ProjectionProgressTables>) {
    this.projector = new RunLogProjector(bus, logger, {
      service: 'checkpoint',
      durable: bus.names.durables.checkpoint,
      apply: (events) => recordProgress(db, events.map(({ event }) => ({ runId: event.runId, seq: event.seq, type: event.type }))),
    });
  }

  onApplicationBootstrap() {
    this.projector.start();
  }

  async onApplicationShutdown() {
    await this.projector.stop();
  }
}
