import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { watchJetStreamCapacity, type Bus } from '@spindle/bus';
import { gatewayMigrations, type GatewayTables } from '@spindle/db';
import { BUS, InfraModule, LOGGER, METRICS } from '@spindle/service-kit';
import type { Registry } from 'prom-client';
import { DATABASE, DatabaseModule, repositoryProvider } from '@spindle/service-db';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { GatewayConfig } from './gateway.config';
import { AgentsController } from './agents/agents.controller';
import { GATEWAY_CONFIG } from './gateway.tokens';
import { ProblemDetailsFilter } from './http/problem-details.filter';
import { OpenStreamsRegistry } from './runs/open-streams.registry';
import { RunFeedHub } from './runs/run-feed.hub';
import { RunReads } from './runs/run-reads.service';
import { RunScores } from './runs/run-scores';
import { ScoresController } from './runs/scores.controller';
import { DatasetsController } from './datasets/datasets.controller';
import { ExperimentsController } from './experiments/experiments.controller';
import { ReplaysController } from './replays/replays.controller';
import { ScoreConfigsController } from './runs/score-configs.controller';
import { RunLogLoss } from './runs/run-log-loss';
import { OverviewController } from './overview/overview.controller';
import { RunEraser } from './runs/run-eraser.service';
import { RunsController } from './runs/runs.controller';
import { WorkflowsController } from './workflows/workflows.controller';
import { CheckpointsController } from './checkpoints/checkpoints.controller';
import { RunForker } from './checkpoints/run-forker.service';
import { RequestAnswers } from './requests/request-answers.service';
import { RequestsController } from './requests/requests.controller';
import { AuditController } from './identity/audit.controller';
import { identityProviders } from './identity/identity.providers';
import { RunOwnership } from './identity/run-ownership';
import { admissionProviders } from './admission/admission.providers';
import { threadProviders } from './threads/thread.providers';
import { ThreadsController } from './threads/threads.controller';
import { webhookProviders } from './webhooks/webhook.providers';
import {
  RunAdmission,
  StartQuotas,
  WebhookRepository,
  EvaluationRepository,
  DatasetRepository,
  ExperimentRepository,
  ReplayRepository,
  AgentCatalogRepository,
  IdempotencyKeysRepository,
  RunStarter,
  WorkflowCatalogRepository,
  RunCanceller,
  FileLibrary,
  FileRepository,
} from '@spindle/control-plane';
import { WebhooksController } from './webhooks/webhooks.controller';
import { scheduleProviders } from './schedules/schedule.providers';
import { SchedulesController } from './schedules/schedules.controller';
import { KnowledgeBasesController } from './knowledge/knowledge-bases.controller';
import { KnowledgeBaseRepository, KnowledgeDocumentRepository } from '@spindle/knowledge';
import { KeysController } from './identity/keys.controller';
import { MeController } from './identity/me.controller';
import { TenantsController } from './identity/tenants.controller';
import { OpenApiController } from './http/openapi.controller';
import { A2aController } from './protocols/a2a/a2a.controller';
import { AgUiController } from './protocols/ag-ui/ag-ui.controller';
import { UiChatController } from './protocols/ui-chat/ui-chat.controller';
import { McpController } from './protocols/mcp/mcp.controller';
import { protocolProviders } from './protocols/protocol.providers';
import { FilesController } from './files/files.controller';
import { CapabilitiesController } from './capabilities/capabilities.controller';
import { RunnerCapabilitiesService } from './capabilities/runner-capabilities.service';

/** Registers the JetStream capacity gauges (a provider so it happens once per app). */
const JETSTREAM_CAPACITY = Symbol('JETSTREAM_CAPACITY');

@Module({})
export class GatewayModule {
  static forRoot(config: GatewayConfig): DynamicModule {
    return {
      module: GatewayModule,
      imports: [InfraModule.forRoot({ config }), DatabaseModule.forRoot({ config, owner: 'gateway', migrations: gatewayMigrations })],
      controllers: [
        WorkflowsController,
        AgentsController,
        RunsController,
        ScoresController,
        ScoreConfigsController,
        DatasetsController,
        ExperimentsController,
        ReplaysController,
        OverviewController,
        RequestsController,
        CheckpointsController,
        KeysController,
        TenantsController,
        AuditController,
        MeController,
        OpenApiController,
        ThreadsController,
        WebhooksController,
        SchedulesController,
        KnowledgeBasesController,
        McpController,
        A2aController,
        AgUiController,
        UiChatController,
        FilesController,
        CapabilitiesController,
      ],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        {
          provide: OpenStreamsRegistry,
          inject: [METRICS],
          useFactory: (metrics: Registry) => new OpenStreamsRegistry(config.streams, metrics),
        },
        RunFeedHub,
        RunnerCapabilitiesService,
        ...identityProviders(config),
        ...admissionProviders(config),
        ...threadProviders(config),
        ...webhookProviders(),
        ...scheduleProviders(),
        repositoryProvider(KnowledgeBaseRepository),
        repositoryProvider(KnowledgeDocumentRepository),
        ...protocolProviders(),
        { provide: APP_FILTER, inject: [LOGGER], useFactory: (logger: Logger) => new ProblemDetailsFilter(logger) },
        repositoryProvider(WorkflowCatalogRepository),
        repositoryProvider(AgentCatalogRepository),
        repositoryProvider(FileRepository),
        repositoryProvider(EvaluationRepository),
        repositoryProvider(DatasetRepository),
        repositoryProvider(ExperimentRepository),
        repositoryProvider(ReplayRepository),
        {
          provide: FileLibrary,
          inject: [BUS, FileRepository],
          useFactory: (bus: Bus, files: FileRepository) => new FileLibrary(bus, files, config.files),
        },
        {
          provide: IdempotencyKeysRepository,
          inject: [DATABASE],
          useFactory: (db: Kysely<GatewayTables>) => new IdempotencyKeysRepository(db, config.idempotencyTtlHours),
        },
        {
          provide: RunStarter,
          inject: [
            BUS,
            WorkflowCatalogRepository,
            AgentCatalogRepository,
            IdempotencyKeysRepository,
            RunAdmission,
            StartQuotas,
            LOGGER,
            WebhookRepository,
            RunOwnership,
            FileLibrary,
          ],
          useFactory: (
            bus: Bus,
            catalog: WorkflowCatalogRepository,
            agents: AgentCatalogRepository,
            keys: IdempotencyKeysRepository,
            admission: RunAdmission,
            quotas: StartQuotas,
            logger: Logger,
            webhooks: WebhookRepository,
            ownership: RunOwnership,
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
              owners: ownership,
              files,
            }),
        },
        {
          // One service shows the log's size on JetStream against the account's limit: the gateway.
          provide: JETSTREAM_CAPACITY,
          inject: [BUS, METRICS],
          useFactory: (bus: Bus, metrics: Registry) => watchJetStreamCapacity(metrics, bus),
        },
        {
          provide: RunReads,
          inject: [BUS, RunLogLoss],
          useFactory: (bus: Bus, loss: RunLogLoss) => new RunReads(bus, config.projectionWaitMs, config.retentionMs, Date.now, loss),
        },
        {
          provide: RunScores,
          inject: [BUS, RunReads],
          useFactory: (bus: Bus, reads: RunReads) => new RunScores(bus, reads, config.projectionWaitMs + 5_000),
        },
        {
          provide: RunEraser,
          inject: [BUS, DATABASE, RunReads, RunLogLoss],
          useFactory: (bus: Bus, db: Kysely<GatewayTables>, reads: RunReads, loss: RunLogLoss) =>
            new RunEraser(bus, db, reads, config.projectionWaitMs, loss),
        },
        { provide: RunCanceller, inject: [BUS], useFactory: (bus: Bus) => new RunCanceller(bus) },
        {
          provide: RunForker,
          inject: [BUS, IdempotencyKeysRepository, RunAdmission, StartQuotas, LOGGER, FileLibrary],
          useFactory: (
            bus: Bus,
            keys: IdempotencyKeysRepository,
            admission: RunAdmission,
            quotas: StartQuotas,
            logger: Logger,
            files: FileLibrary,
          ) => new RunForker(bus, keys, admission, quotas, logger, config.projectionWaitMs, files, config.maxEventBytes),
        },
        {
          provide: RequestAnswers,
          inject: [BUS, WorkflowCatalogRepository, AgentCatalogRepository, FileLibrary],
          useFactory: (bus: Bus, catalog: WorkflowCatalogRepository, agents: AgentCatalogRepository, files: FileLibrary) =>
            new RequestAnswers(bus, catalog, agents, config.projectionWaitMs, files),
        },
      ],
    };
  }
}
