import type { RunSummary } from '@spindle/contracts';

/**
 * Request and response bodies of the `/v1` operations: the types of the zod schemas in `@spindle/contracts`
 * the gateway validates and answers with (and the OpenAPI document is generated from), re-exported under
 * the names this client has always used.
 */
export type {
  StoredFile,
  FunctionList,
  ListedFunction,
  ToolList,
  ListedTool,
  AnswerBody,
  AnswerOutcome,
  ApiKeyView,
  AuditFilter,
  AuditPage,
  AuditRecord,
  AuthConfig,
  CancelOutcome,
  CheckpointList,
  CreatedKey,
  ForkAccepted,
  ForkBody,
  Me,
  NewKeyBody,
  NewTenantBody,
  OpenApiDocument,
  Overview,
  RequestList,
  RequestListFilter,
  RunAccepted,
  RunEventsPage,
  RunList,
  RunListFilter,
  RunLineage,
  LineageRun,
  RunRequests,
  SavedVersion,
  StartRunBody,
  StoredAgent,
  Tenant,
  TenantQuotas,
  WorkflowGraph,
  WorkflowSummary,
  WorkflowVersion,
  WorkflowVersions,
  CatalogDiff,
  CatalogRolledBack,
} from '@spindle/contracts';

/** `GET /v1/runs/{id}`: the run summary; a queued run also says where it is in its tenant's queue (`queue`). */
export type RunDetails = RunSummary;
