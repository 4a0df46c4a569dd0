import type { Provider } from '@nestjs/common';
import type { Bus } from '@spindle/bus';
import { AdmissionRepository, RunAdmission, StartQuotas, TenantDirectory } from '@spindle/control-plane';
import type { GatewayTables } from '@spindle/db';
import { DATABASE } from '@spindle/service-db';
import { BUS, LOGGER } from '@spindle/service-kit';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../gateway.config';

/**
 * The request path's part of the admission: the quota check before a start, and the queueing of
 * the run (admitted in the same statement when there is room). The dispatcher admits the rest.
 */
export function admissionProviders(config: GatewayConfig): Provider[] {
  return [
    { provide: AdmissionRepository, useValue: new AdmissionRepository() },
    {
      provide: RunAdmission,
      inject: [BUS, DATABASE, AdmissionRepository, LOGGER],
      useFactory: (bus: Bus, db: Kysely<GatewayTables>, rows: AdmissionRepository, logger: Logger) =>
        new RunAdmission(bus, db, rows, config.quotas, logger),
    },
    {
      provide: StartQuotas,
      inject: [DATABASE, BUS, TenantDirectory],
      useFactory: (db: Kysely<GatewayTables>, bus: Bus, tenants: TenantDirectory) =>
        new StartQuotas(db, bus, tenants, config.quotas, config.projectionWaitMs + 5_000),
    },
  ];
}
