import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { pingJetStream, type Bus } from '@spindle/bus';
import { createLogger, createMetrics } from '@spindle/telemetry';
import { HealthController, type ReadinessCheck } from './health.controller';
import { connectInfraBus } from './infra-connect';
import type { ServiceConfig } from './service-config';
import { BUS, LOGGER, METRICS, READINESS, SERVICE_CONFIG } from './tokens';

export interface InfraOptions {
  config: ServiceConfig;
}

class InfraShutdown implements OnApplicationShutdown {
  constructor(@Inject(BUS) private readonly bus: Bus) {}
  async onApplicationShutdown() {
    await this.bus.close().catch(() => undefined);
  }
}

/**
 * NATS (streams provisioned), logger, metrics and health routes: what every service has. A
 * service that owns tables adds `DatabaseModule` (libs/service-db), which registers its own
 * readiness check in `READINESS`.
 */
@Global()
@Module({})
export class InfraModule {
  static forRoot(opts: InfraOptions): DynamicModule {
    const { config } = opts;
    return {
      module: InfraModule,
      controllers: [HealthController],
      providers: [
        { provide: SERVICE_CONFIG, useValue: config },
        { provide: LOGGER, useValue: createLogger(config.service, { level: config.logLevel }) },
        { provide: METRICS, useValue: createMetrics(config.service) },
        { provide: BUS, useFactory: () => connectInfraBus(config) },
        {
          provide: READINESS,
          inject: [BUS],
          useFactory: (bus: Bus): ReadinessCheck[] => [
            // A JetStream round trip, not just the socket: a service whose JetStream requests time out is not ready.
            { name: 'nats', check: () => pingJetStream(bus) },
          ],
        },
        InfraShutdown,
      ],
      exports: [SERVICE_CONFIG, LOGGER, METRICS, BUS, READINESS],
    };
  }
}
