import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Bus } from '@spindle/bus';
import { BUS, LOGGER, RunLogProjector, SERVICE_CONFIG, type ServiceConfig } from '@spindle/service-kit';
import type { Logger } from '@spindle/telemetry';
import { RequestsProjection } from './requests.projection';

/** Keeps the requests projection up with every run's log on the approval durable, from bootstrap to shutdown. */
@Injectable()
export class RequestsProjectionConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly projector: RunLogProjector;

  constructor(
    @Inject(BUS) bus: Bus,
    @Inject(LOGGER) logger: Logger,
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
    @Inject(RequestsProjection) projection: RequestsProjection,
  ) {
    this.projector = new RunLogProjector(bus, logger, {
      service: config.service,
      durable: bus.names.durables.approval,
      apply: async (batch) => void (await projection.apply(batch.map(({ event }) => event))),
    });
  }

  onApplicationBootstrap(): void {
    this.projector.start();
  }

  async onModuleDestroy(): Promise<void> {
    // The batch being applied commits and acks before the bus closes.
    await this.projector.stop();
  }
}
