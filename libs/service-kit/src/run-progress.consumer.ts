import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Bus } from '@spindle/bus';
import { recordProgress, type ProjectionProgressTables } from '@spindle/db';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { RunLogProjector } from './run-log-projector';
import type { ServiceConfig } from './service-config';
import { BUS, DATABASE, LOGGER, SERVICE_CONFIG } from './tokens';

/**
 * A projection service's durable view of every run's log that records how far each run has
 * been applied (checkpoint and approval, until their own projections land). The durable is
 * named after the service, so each service reads the whole log once.
 */
@Injectable()
export class RunProgressConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly projector: RunLogProjector;

  constructor(@Inject(BUS) bus: Bus, @Inject(LOGGER) logger: Logger, @Inject(DATABASE) db: Kysely<ProjectionProgressTables>, @Inject(SERVICE_CONFIG) config: ServiceConfig) {
    this.projector = new RunLogProjector(bus, logger, {
      service: config.service,
      durable: config.service,
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
