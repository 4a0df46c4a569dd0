import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { checkStoreRoom, pingJetStream, StreamGuard, watchStoreRoom, type Bus } from '@spindle/bus';
import { createLogger, createMetrics, type Logger } from '@spindle/telemetry';
import type { Registry } from 'prom-client';
import { HealthController, type ReadinessCheck } from './health.controller';
import { connectInfraBus } from './infra-connect';
import type { ServiceConfig } from './service-config';
import { BUS, LOGGER, METRICS, READINESS, SERVICE_CONFIG, STREAM_GUARD } from './tokens';

export interface InfraOptions {
  config: ServiceConfig;
}

class InfraShutdown implements OnApplicationShutdown {
  constructor(@Inject(BUS) private readonly bus: Bus) {}
  async onApplicationShutdown() {
    await this.bus.close().catch(() => undefined);
  }
}

/** How often each service looks for streams a lost JetStream store took with it. */
const STREAM_CHECK_MS = 5_000;

/** Runs the stream guard for as long as the service lives. */
class StreamWatch implements OnApplicationShutdown {
  private readonly stop: () => void;
  constructor(@Inject(STREAM_GUARD) guard: StreamGuard, @Inject(LOGGER) logger: Logger) {
    this.stop = guard.watch(STREAM_CHECK_MS, (e) => logger.warn({ err: e }, 'could not check the JetStream streams; trying again'));
  }
  onApplicationShutdown() {
    this.stop();
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
    const metrics = createMetrics(config.service);
    watchStoreRoom(metrics);
    return {
      module: InfraModule,
      controllers: [HealthController],
      providers: [
        { provide: SERVICE_CONFIG, useValue: config },
        { provide: LOGGER, useValue: createLogger(config.service, { level: config.logLevel }) },
        // A value, not a factory: the gateway's route listing builds the app in preview mode, which calls no factory.
        { provide: METRICS, useValue: metrics },
        { provide: BUS, useFactory: () => connectInfraBus(config) },
        {
          provide: STREAM_GUARD,
          inject: [BUS, LOGGER, METRICS],
          useFactory: (bus: Bus, logger: Logger, metrics: Registry) =>
            new StreamGuard(
              bus,
              { replicas: config.streamReplicas, duplicateWindowMs: 120_000, retentionMs: config.retentionMs },
              {
                metrics,
                onRecreated: (streams) =>
                  logger.error({ streams }, 'JetStream streams were missing (a lost store?) and were made again; what they held is gone'),
              },
            ),
        },
        {
          provide: READINESS,
          inject: [BUS, STREAM_GUARD],
          useFactory: (bus: Bus, guard: StreamGuard): ReadinessCheck[] => [
            // A JetStream round trip, not just the socket: a service whose JetStream requests time out is not ready.
            { name: 'nats', check: () => pingJetStream(bus) },
            // Every stream there (made again if it was lost): "nats: ok" with no streams answered 500s.
            { name: 'streams', check: async () => void (await guard.check()) },
            // A store that refused the last write for room: not ready until a write fits again.
            { name: 'store', check: () => checkStoreRoom(bus) },
          ],
        },
        InfraShutdown,
        StreamWatch,
      ],
      exports: [SERVICE_CONFIG, LOGGER, METRICS, BUS, READINESS, STREAM_GUARD],
    };
  }
}
