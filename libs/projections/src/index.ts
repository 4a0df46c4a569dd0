export { projectEvents } from './project-events';
export { spanKey } from './row-patches';
export type { RowPatches, RunPatch, RunCreation, SpanPatch, SpanKind, SpanStatus } from './row-patches';
export { assembleTrace, toRunSummary, toTraceSpan } from './assemble-trace';
export type { StoredRunRow, StoredSpanRow } from './assemble-trace';
export { rollUpUsage } from './usage-rollups';
export { requestsInLog, runPhase } from './run-requests';
export type { RequestInLog, RequestEvent, AnswerEvent, RunPhase } from './run-requests';
