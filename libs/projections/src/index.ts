export { projectEvents } from './project-events';
export { spanKey } from './row-patches';
export { searchTextOf, SEARCH_TEXT_BUDGET } from './search-text';
export type { RowPatches, RunPatch, RunCreation, SpanPatch, SpanKind, SpanStatus } from './row-patches';
export { assembleTrace, toRunSummary, toTraceSpan } from './assemble-trace';
export type { FoldedTrace, StoredRunRow, StoredSpanRow } from './assemble-trace';
export { rollUpUsage } from './usage-rollups';
export { openRequestsOf, requestsInLog, runPhase } from './run-requests';
export type { RequestInLog, RequestEvent, AnswerEvent, RunPhase } from './run-requests';
export { planExecution } from './execution-plan';
export type { ExecutionPlan } from './execution-plan';
export { admissionStateAfter, pickAdmissions } from './admission';
export type { AdmissionState, TenantQueue } from './admission';
export { threadRunStatusAfter } from './thread-runs';
export { webhookEventAfter, webhookSubscribes, type WebhookEventBody, type WebhookRun, type WebhookSubscription } from './webhook-events';
export {
  MCP_RUN_META_KEY,
  mcpToolOf,
  mcpTaskOf,
  mcpElicitationOf,
  answerOfElicitation,
  MCP_TASK_POLL_MS,
  startBodyOfToolCall,
  toolCallStepAfter,
  toolCallStepOf,
  type CatalogWorkflow,
  type McpTool,
  type McpToolResult,
  type McpTask,
  type McpElicitation,
  type OpenRequest,
  type ToolCallStep,
} from './mcp-tools';
export { a2aAgentCardOf, a2aTaskOf, answerOfMessage, startBodyOfMessage } from './a2a-tasks';
export { answerOfInterrupt } from './ag-ui-answers';
export { agUiEventsOf, AgUiStream, interruptIdOf, parseInterruptId, type AgUiEvent, type AgUiRunIds } from './ag-ui-events';
export { endsUiMessage, uiMessageChunksOf, uiTextChunkOf, type UiMessageChunk } from './ui-message-chunks';
export { ModelTextStreams, type TextPiece } from './model-text-streams';
export { stateAt } from './checkpoint-state';
export { formFieldsOf } from './form-fields';
export type { FormField } from './form-fields';
