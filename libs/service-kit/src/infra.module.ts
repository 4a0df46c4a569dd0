import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { Bus } from '@spindle/bus';
import { createLogger, createMetrics } from '@spindle/telemetry';
import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';
import { HealthController, type ReadinessCheck } from './health.controller';
import { connectInfraBus, connectInfraDatabase } from './infra-connect';
import type { ServiceConfig } from './service-config';
import { BUS, DATABASE, LOGGER, METRICS, READINESS, SERVICE_CONFIG } from './tokens';

export interface InfraOptions {
  config: ServiceConfig;
  /** The service's own schema and migrations; omit for a service without tables. */
  database?: { owner: string; migrations: Record<string, Migration> };
}

class InfraShutdown implements OnApplicationShutdown {
  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(DATABASE) private readonly db: Kysely<unknown> | null,
  ) {}
  async onApplicationShutdown() {
    await this.bus.close().catch(() => undefined);
    await this.db?.destroy().catch(() => undefined);
  }
}

/** NATS (streams provisioned), the service's schema (migrated), logger, metrics and health routes. */
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
          provide: DATABASE,
          useFactory: async () =>
            opts.database ? (await connectInfraDatabase(config, opts.database.owner, opts.database.migrations)).db : null,
        },
        {
          provide: READINESS,
          inject: [BUS, DATABASE],
          useFactory: (bus: Bus, db: Kysely<unknown> | null): ReadinessCheck[] => [
            // A JetStream round trip, not just the socket: a service whose JetStream requests time out is not ready.
            { name: 'nats', check: async () => void (await bus.jsm.getAccountInfo()) },
            ...(db ? [{ name: 'postgres', check: async () => void (await sql`select 1`.execute(db)) }] : []),
          ],
        },
        InfraShutdown,
      ],
      exports: [SERVICE_CONFIG, LOGGER, METRICS, BUS, DATABASE, READINESS],
    };
  }
}
