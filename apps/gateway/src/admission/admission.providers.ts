import type { Provider } from '@nestjs/common';
import type { Bus } from '@spindle/bus';
import { isTerminalEvent } from '@spindle/contracts';
import type { GatewayTables } from '@spindle/db';
import { ProjectionRunner } from '@spindle/projection-kit';
import { DATABASE } from '@spindle/service-db';
import { BUS, LOGGER, METRICS, PeriodicLoop } from '@spindle/service-kit';
import type { Registry } from 'prom-client';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../gateway.config';
import { TenantDirectory } from '../identity/tenant-directory';
import { AdmissionRepository, controlPlaneProjection, registerQueueMetrics, RunAdmission, StartQuotas } from '@spindle/control-plane';
import { THREAD_DISPATCH_LOOP } from '../threads/thread.providers';

/** Quotas and the fair admission of queued runs to the runners. */
export function admissionProviders(config: GatewayConfig): Provider[] {
  return [
    {
      provide: AdmissionRepository,
      inject: [DATABASE, METRICS],
      useFactory: (db: Kysely<GatewayTables>, metrics: Registry) => {
        const rows = new AdmissionRepository();
        registerQueueMetrics(metrics, db, rows);
        return rows;
      },
    },
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
    {
      // Runs that start, pause or end free room: a batch is a reason to look, when runs wait (for the
      // admission, or for their turn on a thread). Batches of 50 ms: the admission needs no event
      // sooner, and fewer transactions cost the machine less. Threads are folded in the same
      // transaction: one consumer of the gateway's.
      provide: ProjectionRunner,
      inject: [BUS, DATABASE, AdmissionRepository, RunAdmission, THREAD_DISPATCH_LOOP, LOGGER, METRICS],
      useFactory: (
        bus: Bus,
        db: Kysely<GatewayTables>,
        rows: AdmissionRepository,
        admission: RunAdmission,
        threadDispatch: PeriodicLoop,
        logger: Logger,
        metrics: Registry,
      ) =>
        new ProjectionRunner<GatewayTables>(bus, db, controlPlaneProjection(bus.names.durables.admission, rows), logger, {
          lingerMs: 50,
          metrics,
          retentionMs: config.retentionMs,
          onBatch: (batch) => {
            admission.roomFreed();
            // A thread's next run can start only once a run has ended (the tick covers the rest).
            if (batch.events.some(isTerminalEvent)) void threadDispatch.tick();
          },
        }),
    },
    {
      provide: PeriodicLoop,
      inject: [RunAdmission, LOGGER],
      useFactory: (admission: RunAdmission, logger: Logger) =>
        new PeriodicLoop({ name: 'admission', everyMs: 1_000, pass: () => admission.tick(), logger }),
    },
  ];
}
