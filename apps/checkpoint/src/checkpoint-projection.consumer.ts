import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Bus } from '@spindle/bus';
import type { RunEvent } from '@spindle/contracts';
import type { CheckpointTables } from '@spindle/db';
import { BUS, DATABASE, LOGGER, RunLogProjector, SERVICE_CONFIG, type ServiceConfig } from '@spindle/service-kit';
import type { Logger } from '@spindle/telemetry';
import type { Kysely } from 'kysely';
import { applyRunEvents } from './checkpoint-rows.writer';
import { CHECKPOINT_SETTINGS, type CheckpointSettings } from './checkpoint-settings';

/** Keeps the checkpoint tables up with every run's log, through the service's durable consumer. */
@Injectable()
export class CheckpointProjectionConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly projector: RunLogProjector;

  constructor(
    @Inject(BUS) bus: Bus,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(DATABASE) private readonly db: Kysely<CheckpointTables>,
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
    @Inject(CHECKPOINT_SETTINGS) private readonly settings: CheckpointSettings,
  ) {
    this.projector = new RunLogProjector(bus, logger, {
      service: config.service,
      durable: bus.names.durables.checkpoint,
      apply: (batch) => this.apply(batch.map(({ event }) => event)),
    });
  }

  onApplicationBootstrap(): void {
    this.projector.start();
  }

  async onModuleDestroy(): Promise<void> {
    // The batch in hand commits and is acknowledged before the bus and database close.
    await this.projector.stop();
  }

  private async apply(events: RunEvent[]): Promise<void> {
    try {
      await applyRunEvents(this.db, events, this.settings.ttlHours);
    } catch (e) {
      if (!isDataRejection(e)) throw e;
      // Some event's content is refused (not an outage): keep the others rather than retry the batch forever.
      for (const event of events) {
        try {
          await applyRunEvents(this.db, [event], this.settings.ttlHours);
        } catch (refused) {
          if (!isDataRejection(refused)) throw refused;
          this.logger.error({ err: refused, runId: event.runId, seq: event.seq, type: event.type }, `the database refused event ${event.runId}:${event.seq}; skipped`);
        }
      }
    }
  }
}

/** Postgres refused the data itself (SQLSTATE class 22 data exception, 54 limit exceeded). */
function isDataRejection(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' && /^(22|54)/.test(code);
}
