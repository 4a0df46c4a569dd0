import type { Provider } from '@nestjs/common';
import type { Bus } from '@spindle/bus';
import {
  AdmissionRepository,
  AgentCatalogRepository,
  FileCollector,
  FileLibrary,
  FileRepository,
  IdempotencyKeysRepository,
  registerQueueMetrics,
  RunAdmission,
  RunCanceller,
  RunStarter,
  Scheduler,
  ScheduleRepository,
  StartQuotas,
  TenantDirectory,
  TenantsRepository,
  ThreadDispatcher,
  ThreadRepository,
  WebhookDeliverer,
  WebhookRepository,
  EvaluationRepository,
  EvaluationWorker,
  ExperimentRunner,
  ReplayRunner,
  WorkflowCatalogRepository,
} from '@spindle/control-plane';
import type { GatewayTables } from '@spindle/db';
import { createEgressGuard } from '@spindle/egress';
import { DATABASE, repositoryProvider } from '@spindle/service-db';
import { BUS, LOGGER, METRICS } from '@spindle/service-kit';
import type { Logger } from '@spindle/telemetry';
import type { Kysely } from 'kysely';
import type { Registry } from 'prom-client';
import type { DispatcherConfig } from './dispatcher.config';

type Db = Kysely<GatewayTables>;

/** The control plane's repositories and the services the passes call (the library's classes, wired). */
export function controlPlaneProviders(config: DispatcherConfig): Provider[] {
  return [
    repositoryProvider(ThreadRepository),
    repositoryProvider(ScheduleRepository),
    repositoryProvider(WebhookRepository),
    repositoryProvider(EvaluationRepository),
    repositoryProvider(WorkflowCatalogRepository),
    repositoryProvider(AgentCatalogRepository),
    repositoryProvider(TenantsRepository),
    repositoryProvider(FileRepository),
    {
      provide: FileLibrary,
      inject: [BUS, FileRepository],
      useFactory: (bus: Bus, files: FileRepository) => new FileLibrary(bus, files, config.files),
    },
    {
      provide: FileCollector,
      inject: [BUS, FileRepository, LOGGER],
      useFactory: (bus: Bus, files: FileRepository, logger: Logger) => new FileCollector(bus, files, config.files.unreferencedMs, logger),
    },
    {
      provide: AdmissionRepository,
      inject: [DATABASE, METRICS],
      useFactory: (db: Db, metrics: Registry) => {
        const rows = new AdmissionRepository();
        registerQueueMetrics(metrics, db, rows);
        return rows;
      },
    },
    {
      provide: IdempotencyKeysRepository,
      inject: [DATABASE],
      useFactory: (db: Db) => new IdempotencyKeysRepository(db, config.idempotencyTtlHours),
    },
    { provide: TenantDirectory, inject: [TenantsRepository], useFactory: (tenants: TenantsRepository) => new TenantDirectory(tenants) },
    {
      provide: RunAdmission,
      inject: [BUS, DATABASE, AdmissionRepository, LOGGER],
      useFactory: (bus: Bus, db: Db, rows: AdmissionRepository, logger: Logger) => new RunAdmission(bus, db, rows, config.quotas, logger),
    },
    {
      provide: StartQuotas,
      inject: [DATABASE, BUS, TenantDirectory],
      useFactory: (db: Db, bus: Bus, tenants: TenantDirectory) =>
        new StartQuotas(db, bus, tenants, config.quotas, config.projectionWaitMs + 5_000),
    },
    { provide: RunCanceller, inject: [BUS], useFactory: (bus: Bus) => new RunCanceller(bus) },
    {
      provide: RunStarter,
      inject: [
        BUS,
        WorkflowCatalogRepository,
        AgentCatalogRepository,
        IdempotencyKeysRepository,
        RunAdmission,
        StartQuotas,
        WebhookRepository,
        LOGGER,
        FileLibrary,
      ],
      useFactory: (
        bus: Bus,
        catalog: WorkflowCatalogRepository,
        agents: AgentCatalogRepository,
        keys: IdempotencyKeysRepository,
        admission: RunAdmission,
        quotas: StartQuotas,
        webhooks: WebhookRepository,
        logger: Logger,
        files: FileLibrary,
      ) =>
        new RunStarter({
          bus,
          catalog,
          agents,
          keys,
          admission,
          quotas,
          logger,
          maxEventBytes: config.maxEventBytes,
          webhooks,
          files,
        }),
    },
    {
      provide: ThreadDispatcher,
      inject: [DATABASE, ThreadRepository, RunStarter, BUS, LOGGER],
      useFactory: (db: Db, threads: ThreadRepository, starter: RunStarter, bus: Bus, logger: Logger) =>
        new ThreadDispatcher(db, threads, starter, bus, logger, config.projectionWaitMs),
    },
    {
      provide: Scheduler,
      inject: [ScheduleRepository, RunStarter, RunCanceller, BUS, LOGGER],
      useFactory: (rows: ScheduleRepository, starter: RunStarter, canceller: RunCanceller, bus: Bus, logger: Logger) =>
        new Scheduler(rows, starter, canceller, bus, logger),
    },
    {
      provide: ExperimentRunner,
      inject: [DATABASE, RunStarter, BUS, LOGGER],
      useFactory: (db: Db, starter: RunStarter, bus: Bus, logger: Logger) => new ExperimentRunner(db, starter, bus, logger),
    },
    {
      provide: ReplayRunner,
      inject: [DATABASE, RunStarter, BUS],
      useFactory: (db: Db, starter: RunStarter, bus: Bus) => new ReplayRunner(db, starter, bus),
    },
    {
      provide: EvaluationWorker,
      inject: [EvaluationRepository, BUS, LOGGER, RunStarter],
      useFactory: (rows: EvaluationRepository, bus: Bus, logger: Logger, starter: RunStarter) =>
        new EvaluationWorker(rows, bus, logger, starter),
    },
    {
      // The one process that sends requests to user-supplied URLs: every resolved address is checked at connect time.
      provide: WebhookDeliverer,
      inject: [WebhookRepository, LOGGER],
      useFactory: (rows: WebhookRepository, logger: Logger) =>
        new WebhookDeliverer(rows, createEgressGuard(config.webhooks.egress), config.webhooks, logger),
    },
  ];
}
