export {
  ErrorCodes,
  retryableByCode,
  SpindleError,
  RunCanceledError,
  PublicError,
  isSpindleError,
  isInfrastructureFault,
  isRetryable,
} from './errors';
export { backoffDelay, sleep } from './backoff';
export type { BackoffPolicy } from './backoff';
export type { ErrorCode, FieldIssue } from './errors';
export { busNames } from './bus-names';
export { RUN_ID_PATTERN, runIdSchema, isRunId, assertRunId, runIdTime, predatesRunLog } from './run-id';
export { RESERVED_NAMES, isReservedName, reservedNameMessage } from './reserved-names';
export { canonicalJson, isJsonObject } from './canonical-json';
export { fieldPath, zodFieldIssues, ajvFieldIssues, describeIssues } from './field-issues';
export type { ZodLikeIssue, AjvLikeError, IssuePlace } from './field-issues';
export { envBoolean, envInteger, envOptional, envPositive, envText, parseEnv } from './env-schema';
export type { Env } from './env-schema';
export { parseBody } from './parse-body';
export { planCatalogSave } from './catalog-save';
export type { CatalogEntry, CatalogSave } from './catalog-save';
export {
  SCOPES,
  scopeSchema,
  isScope,
  TENANT_ID_PATTERN,
  tenantIdSchema,
  DEFAULT_TENANT,
  actorSchema,
  recordedActorSchema,
} from './identity';
export type { Scope, Actor, Principal } from './identity';
export type { BusNames, QueryService } from './bus-names';
export {
  runEventSchema,
  runEventSchemas,
  runEventTypes,
  usageSchema,
  errorInfoSchema,
  workflowRefSchema,
  terminalEventTypes,
  isTerminalEvent,
  onRunEvent,
  customEventNameSchema,
  MAX_CUSTOM_EVENT_BYTES,
} from './run-events';
export { sealRunEvent } from './run-event-seal';
export type { EventStamp } from './run-event-seal';
export { checkRunEvent, eitherSelection, EVERY_RUN_EVENT, readsOfHandlers, readsOnly } from './run-event-check';
export { addCallUsage, costLabel, EMPTY_USAGE } from './usage';
export {
  runDurations,
  nodeDurations,
  humanDuration,
  foldRunClock,
  runClockDurations,
  movesRunClock,
  spanDurations,
  requestWaitsByParent,
  RUN_CLOCK_EVENT_TYPES,
  EMPTY_RUN_CLOCK,
} from './durations';
export type { Durations, RunClock, TimedEvent, WaitingSpan } from './durations';
export type { RunEventCheck, RunEventSelection } from './run-event-check';
export type {
  RunEvent,
  RunEventType,
  RunEventOf,
  RunEventData,
  RunEventDraft,
  RunEventHandlers,
  Usage,
  ErrorInfo,
  TerminalEventType,
} from './run-events';
export { runCommandSchema, tokenDeltaSchema, tokenPartSchema, runControlSchema } from './run-commands';
export type { RunCommand, TokenDelta, TokenPart, RunControl } from './run-commands';
export { runStatusSchema, terminalStatuses } from './run-status';
export {
  RUN_SORT_KEYS,
  runSortSchema,
  sortOrderSchema,
  searchWords,
  parseParameterFilter,
  parseScoreFilter,
  scoreFilterSchema,
  INTERNAL_WORKFLOW_PREFIX,
  isInternalWorkflow,
  internalRunsFilterSchema,
} from './run-search';
export type { RunSort, SortOrder, InternalRunsFilter, ScoreFilter } from './run-search';
export { actorLabel } from './actor-label';
export {
  forkOriginText,
  runLineage,
  runLineageSchema,
  lineageRunSchema,
  forkPointSchema,
  MAX_LINEAGE_RUNS,
  MAX_LINEAGE_DEPTH,
} from './run-lineage';
export type { RunLineage, LineageRun, ForkPoint } from './run-lineage';
export type { RunStatus } from './run-status';
export {
  runSummarySchema,
  traceSpanSchema,
  runTraceSchema,
  traceQuerySchemas,
  spanKindSchema,
  spanStatusSchema,
  usageRollupsSchema,
  eraseRunQuerySchema,
} from './trace-queries';
export type {
  RunSummary,
  TraceSpan,
  RunTrace,
  TraceQueryOp,
  TraceQuery,
  TraceQueryResults,
  QueryReply,
  UsageRollups,
  EraseRunResult,
} from './trace-queries';
export { inputFormSchema, answerModeSchema, pendingToolCallSchema } from './run-events';
export type { InputForm, AnswerMode, PendingToolCall } from './run-events';
export {
  checkpointSummarySchema,
  checkpointSchema,
  nodeResultSchema,
  checkpointQuerySchemas,
  requestStatusSchema,
  humanRequestSchema,
  approvalQuerySchemas,
  dispatcherQuerySchemas,
} from './service-queries';
export type {
  CheckpointSummary,
  Checkpoint,
  NodeResult,
  CheckpointQueryOp,
  CheckpointQueryResults,
  DispatcherQueryOp,
  DispatcherQueryResults,
  RequestStatus,
  HumanRequest,
  ApprovalQueryOp,
  ApprovalQueryResults,
} from './service-queries';
export { MAX_SEQ, MAX_VERSION, parseDecimalInteger, queryInteger } from './http-api/decimal-integer';
export type { IntegerRange } from './http-api/decimal-integer';
export {
  WORKFLOW_NAME_PATTERN,
  AGENT_NAME_PATTERN,
  pathParamSchemas,
  listLimitSchema,
  listCursorSchema,
  runsListQuerySchema,
  requestsListQuerySchema,
  overviewQuerySchema,
  eventsQuerySchema,
  streamTokenBodySchema,
  STREAM_TOKEN_TTL_SECONDS,
  workflowVersionQuerySchema,
  rollbackBodySchema,
  newThreadBodySchema,
  threadRunBodySchema,
  threadsListQuerySchema,
  threadStateBodySchema,
  newWebhookBodySchema,
  webhookDeliveriesQuerySchema,
  datasetItemsQuerySchema,
  datasetVersionQuerySchema,
  experimentsCompareQuerySchema,
  newScheduleBodySchema,
  tenantQuerySchema,
  auditQuerySchema,
  startRunBodySchema,
  cancelBodySchema,
  forkBodySchema,
  answerBodySchema,
  fileUploadQuerySchema,
  newKeyBodySchema,
  newTenantBodySchema,
  tenantQuotasSchema,
} from './http-api/request.schemas';
export type {
  RunListFilter,
  RequestListFilter,
  AuditFilter,
  StartRunBody,
  ForkBody,
  AnswerBody,
  NewKeyBody,
  NewTenantBody,
  TenantQuotas,
  NewThreadBody,
  ThreadRunBody,
  ThreadRunRequest,
  ThreadStateBody,
  NewWebhookBody,
  NewScheduleBody,
  NewScheduleRequest,
} from './http-api/request.schemas';
export {
  runAcceptedSchema,
  forkAcceptedSchema,
  cancelOutcomeSchema,
  streamTokenSchema,
  answerOutcomeSchema,
  runListSchema,
  requestListSchema,
  runRequestsSchema,
  checkpointListSchema,
  runEventsPageSchema,
  catalogSavedSchema,
  workflowSummarySchema,
  workflowListSchema,
  workflowVersionSchema,
  workflowVersionsSchema,
  fieldChangeSchema,
  versionDiffSchema,
  catalogDiffSchema,
  catalogRolledBackSchema,
  threadListSchema,
  threadStateSchema,
  threadRunsSchema,
  threadRunAcceptedSchema,
  webhookListSchema,
  createdWebhookSchema,
  webhookDeliveriesSchema,
  scheduleListSchema,
  scheduleFiringsSchema,
  workflowGraphSchema,
  storedAgentSchema,
  agentListSchema,
  meSchema,
  authConfigSchema,
  apiKeyViewSchema,
  newApiKeySchema,
  apiKeyListSchema,
  tenantSchema,
  tenantListSchema,
  auditRecordSchema,
  auditPageSchema,
  openApiDocumentSchema,
} from './http-api/response.schemas';
export type {
  RunAccepted,
  ForkAccepted,
  CancelOutcome,
  StreamToken,
  AnswerOutcome,
  WorkflowSummary,
  ApiKeyView,
  Tenant,
  AuditRecord,
  RunList,
  RequestList,
  RunRequests,
  CheckpointList,
  RunEventsPage,
  SavedVersion,
  WorkflowList,
  WorkflowVersion,
  WorkflowVersions,
  FieldChange,
  VersionDiff,
  CatalogDiff,
  CatalogRolledBack,
  ThreadList,
  ThreadState,
  ThreadRuns,
  ThreadRunAccepted,
  WebhookList,
  CreatedWebhook,
  WebhookDeliveries,
  ScheduleList,
  ScheduleFirings,
  WorkflowGraph,
  StoredAgent,
  AgentList,
  Me,
  AuthConfig,
  CreatedKey,
  ApiKeyList,
  TenantList,
  AuditPage,
  OpenApiDocument,
} from './http-api/response.schemas';
export { PROBLEM_CONTENT_TYPE, problemSchema, fieldIssueSchema } from './http-api/problem.schema';
export type { Problem } from './http-api/problem.schema';
export { tokenFrameSchema, streamErrorFrameSchema, RUN_STREAM_FRAMES } from './http-api/run-event-stream.schemas';
export type { TokenFrame, StreamFrame } from './http-api/run-event-stream.schemas';
export { httpOperations, REQUEST_HEADERS } from './http-api/http-operations';
export type { HttpMethod, HttpOperation, HttpResponseSpec, DefinitionSchemas, RequestHeaderName } from './http-api/http-operations';
export { buildOpenApiDocument } from './http-api/openapi-document';
export type { OpenApiOptions, OperationAccess, JsonObject } from './http-api/openapi-document';
export {
  THREAD_ID_PATTERN,
  threadIdSchema,
  MULTITASK_STRATEGIES,
  multitaskStrategySchema,
  threadRunStatusSchema,
  threadRunSchema,
  threadSchema,
} from './threads';
export type { MultitaskStrategy, ThreadRunStatus, ThreadRun, Thread } from './threads';
export {
  WEBHOOK_ID_PATTERN,
  WEBHOOK_EVENT_TYPES,
  webhookEventTypeSchema,
  webhookEventSchema,
  webhookSchema,
  webhookAttemptSchema,
  webhookDeliverySchema,
  webhookScope,
} from './webhooks';
export type { WebhookEventType, WebhookEvent, Webhook, WebhookDelivery } from './webhooks';
export { checkWebhookSignature, signWebhook, verifyWebhookSignature, WEBHOOK_SIGNATURE_TOLERANCE_SECONDS } from './webhook-signature';
export type { WebhookSignatureCheck } from './webhook-signature';
export {
  SCHEDULE_ID_PATTERN,
  SCHEDULE_UPCOMING_FIRINGS,
  scheduleOverlapSchema,
  scheduleCatchUpSchema,
  scheduleSchema,
  scheduleFiringSchema,
} from './schedules';
export type { Schedule, ScheduleFiring } from './schedules';
export {
  JSON_RPC_ERROR,
  jsonRpcMessageSchema,
  jsonRpcParseError,
  parseJsonRpcRequest,
  type JsonRpcMessage,
  type JsonRpcRequest,
} from './json-rpc';
export { jsonRpcMethodScopes, scopeOfJsonRpcMethod, type JsonRpcProtocol } from './protocol-scopes';
export { protocolErrorOf, protocolMessageOf, type ProtocolError } from './protocol-errors';
export {
  A2A_ERROR,
  A2A_FINAL_STATES,
  A2A_PROTOCOL_VERSION,
  a2aMessageSchema,
  a2aMessageSendParamsSchema,
  a2aPartSchema,
  a2aTaskIdParamsSchema,
  type A2aArtifact,
  type A2aArtifactUpdate,
  type A2aMessage,
  type A2aMessageSendParams,
  type A2aPart,
  type A2aStatusUpdate,
  type A2aTask,
  type A2aTaskState,
  type A2aTaskStatus,
} from './a2a';
export { agUiResumeEntrySchema, agUiRunInputSchema, type AgUiRunInput } from './ag-ui';
export { CHAT_ID_PATTERN, uiChatRequestSchema, type UiChatRequest } from './ui-chat';
export { overviewSchema, runsOverviewSchema, pendingAgesSchema, overviewDaySchema, PENDING_AGE_BUCKETS } from './overview';
export type { Overview, OverviewDay, RunsOverview, PendingAges } from './overview';
export { FILE_ID_PATTERN, fileIdSchema, filePartInputSchema, fileRefSchema, isFileRef, fileRefsIn, storedFileSchema } from './attachments';
export type { FilePartInput, FileRef, StoredFile } from './attachments';
export {
  retrievedChunkSchema,
  retrievalResultSchema,
  isRetrievalResult,
  contextCutKindSchema,
  truncationStrategySchema,
} from './retrieval';
export type { RetrievedChunk, RetrievalResult, ContextCutKind, TruncationStrategy } from './retrieval';
export { MODEL_CONTEXT_WINDOWS, modelContextWindow } from './model-windows';
export { SNIFFABLE_MEDIA_TYPES, isSniffableMediaType, isImageMediaType, sniffMediaType, claimedMediaType } from './file-media-type';
export type { SniffableMediaType, SniffOutcome } from './file-media-type';
export {
  knowledgeBaseNameSchema,
  DOCUMENT_ID_PATTERN,
  embeddingModelRefSchema,
  chunkingSchema,
  metadataFilterSchema,
  knowledgeBaseSaveSchema,
  knowledgeBaseSchema,
  documentStatusSchema,
  knowledgeDocumentSchema,
  documentJsonBodySchema,
  knowledgeQueryBodySchema,
  ingestDocumentQuerySchema,
  retrieveQuerySchema,
  retrieveAnswerSchema,
} from './knowledge';
export type {
  Chunking,
  MetadataFilter,
  KnowledgeBaseSave,
  KnowledgeBase,
  DocumentStatus,
  KnowledgeDocument,
  RetrieveQuery,
  RetrieveAnswer,
} from './knowledge';
export {
  BUILT_IN_PLUGIN,
  CAPABILITY_CHECK_HEADER,
  capabilityCheckQuerySchema,
  functionListSchema,
  runnerCapabilitiesSchema,
  toolListSchema,
} from './runner-capabilities';
export type {
  CapabilityCheckOutcome,
  FunctionCapability,
  FunctionList,
  ListedFunction,
  ListedTool,
  PluginCapability,
  RunnerCapabilities,
  ToolCapability,
  ToolList,
} from './runner-capabilities';
export {
  newScoreBodySchema,
  SCORE_DATA_TYPES,
  SCORE_NAME_PATTERN,
  scoreDataTypeOf,
  scoreDataTypeSchema,
  scoreEvaluatorSchema,
  scoreNameSchema,
  scoreQuerySchemas,
  scoreSchema,
  scoreValueSchema,
  sameScoreBody,
  scoreNumberOf,
} from './scores';
export type { NewScoreBody, Score, ScoreDataType, ScoreQueryResults, ScoreValue } from './scores';
export {
  evaluatorScoreName,
  evaluatorSpecSchema,
  builtinEvaluatorSpecSchema,
  builtinEvaluatorsSchema,
  workflowEvaluatorSpecSchema,
  evaluatorsSchema,
  inEvaluatorSample,
  MAX_EVALUATORS,
  runEvaluationSchema,
} from './evaluators';
export type { BuiltinEvaluatorSpec, EvaluatorSpec, EvaluatorType, RunEvaluation, WorkflowEvaluatorSpec } from './evaluators';
export {
  addDatasetItemsBodySchema,
  DATASET_ITEM_ID_PATTERN,
  DATASET_NAME_PATTERN,
  datasetItemSchema,
  datasetItemsAddedSchema,
  datasetNameSchema,
  datasetSaveBodySchema,
  datasetSchema,
  inDatasetVersion,
  MAX_ITEMS_PER_REQUEST,
  newDatasetItemSchema,
} from './datasets';
export type { AddDatasetItemsBody, Dataset, DatasetItem, DatasetItemsAdded, NewDatasetItem } from './datasets';
export {
  EXPERIMENT_ID_PATTERN,
  EXPERIMENT_ITEM_STATUSES,
  EXPERIMENT_STATUSES,
  experimentComparisonSchema,
  experimentItemSchema,
  experimentItemStatusSchema,
  experimentSchema,
  experimentStatusSchema,
  experimentSummarySchema,
  MAX_EXPERIMENT_CONCURRENCY,
  newExperimentBodySchema,
} from './experiments';
export type {
  Experiment,
  ExperimentComparison,
  ExperimentItem,
  ExperimentItemStatus,
  ExperimentStatus,
  ExperimentSummary,
  NewExperimentBody,
} from './experiments';
export { replayDivergenceModeSchema } from './run-events';
export type { ReplayDivergenceMode } from './run-events';
export {
  DIVERGENCE_KINDS,
  MAX_REPLAY_RUNS,
  newReplayBodySchema,
  REPLAY_ID_PATTERN,
  REPLAY_OUTCOMES,
  replayDivergenceSchema,
  replayOutcomeSchema,
  replayListItemSchema,
  replayRunReportSchema,
  replaySchema,
} from './replays';
export type { DivergenceKind, NewReplayBody, Replay, ReplayDivergence, ReplayListItem, ReplayOutcome, ReplayRunReport } from './replays';
export {
  scoreConfigBodySchema,
  scoreConfigIssue,
  scoreConfigListSchema,
  scoreConfigQuerySchemas,
  scoreConfigSchema,
  scoreSettingsBodySchema,
} from './score-configs';
export type { ScoreConfig, ScoreConfigBody, ScoreConfigList, ScoreConfigQueryResults } from './score-configs';
