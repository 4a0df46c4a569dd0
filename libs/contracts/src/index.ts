export { ErrorCodes, retryableByCode, SpindleError, RunCanceledError, PublicError, isSpindleError, isInfrastructureFault } from './errors';
export type { ErrorCode, FieldIssue } from './errors';
export { busNames } from './bus-names';
export { RUN_ID_PATTERN, runIdSchema, isRunId, assertRunId } from './run-id';
export { RESERVED_NAMES, isReservedName, reservedNameMessage } from './reserved-names';
export { canonicalJson } from './canonical-json';
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
} from './run-events';
export { checkRunEvent } from './run-event-check';
export type { RunEventCheck } from './run-event-check';
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
export { runCommandSchema, tokenDeltaSchema, runControlSchema } from './run-commands';
export type { RunCommand, TokenDelta, RunControl } from './run-commands';
export { runStatusSchema, terminalStatuses } from './run-status';
export type { RunStatus } from './run-status';
export {
  runSummarySchema,
  traceSpanSchema,
  runTraceSchema,
  traceQuerySchemas,
  spanKindSchema,
  spanStatusSchema,
  usageRollupsSchema,
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
} from './service-queries';
export type {
  CheckpointSummary,
  Checkpoint,
  NodeResult,
  CheckpointQueryOp,
  CheckpointQueryResults,
  RequestStatus,
  HumanRequest,
  ApprovalQueryOp,
  ApprovalQueryResults,
} from './service-queries';
