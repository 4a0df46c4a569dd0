import { z } from 'zod';
import type { FieldIssue } from './errors';
import { actorSchema, tenantIdSchema } from './identity';
import { errorInfoSchema, usageSchema, workflowRefSchema, type Usage } from './run-events';
import { runStatusSchema } from './run-status';
import { runIdSchema } from './run-id';
import { runSearchFields, runSortSchema, sortOrderSchema } from './run-search';
import { runsOverviewQuerySchema, type RunsOverview } from './overview';
import { scoreQuerySchemas, scoreSchema, type ScoreQueryResults } from './scores';
import { scoreConfigQuerySchemas, type ScoreConfigQueryResults } from './score-configs';

/** Read model of the trace recorder, served over NATS request/reply. */
export const runSummarySchema = z.object({
  runId: z.string(),
  workflow: workflowRefSchema,
  status: runStatusSchema,
  queuedAt: z.string(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  wallMs: z
    .number()
    .nonnegative()
    .describe('Wall time in ms: from run.queued to the run’s end, or to now while it runs (libs/contracts durations).'),
  workingMs: z
    .number()
    .nonnegative()
    .describe('Working time in ms: wall time less the time spent waiting for a person or handed back to the queue.'),
  usage: usageSchema,
  error: errorInfoSchema.nullable(),
  lastSeq: z.number().int(),
  forkedFrom: z
    .object({ runId: z.string(), seq: z.number().int(), checkpointId: z.string().optional(), forkedBy: actorSchema.optional() })
    .nullable(),
  tenant: z.string(),
  /** Who started it; null for runs queued before identity. */
  startedBy: actorSchema.nullable(),
  canceledBy: actorSchema.nullable(),
  /**
   * The workflow's latest version now (the gateway adds it to a single run): when it is not
   * `workflow.version`, the run ran an older one. Null once the workflow is deleted.
   */
  workflowLatestVersion: z.number().int().nullable().optional(),
  /** A queued run still waiting for its turn (the gateway adds it): 1 is its tenant's next. */
  queue: z.object({ position: z.number().int().positive(), reason: z.enum(['tenant_limit', 'capacity']) }).optional(),
  /**
   * The run's log went with a lost JetStream store (the gateway adds it to a listed run): this
   * summary, as last projected, is all that is left, and the run itself answers `410 run_log_lost`.
   */
  logLost: z.literal(true).optional(),
});
export type RunSummary = z.infer<typeof runSummarySchema>;

/**
 * `request`: a person's input or a tool approval, from the question to the answer (span id = request id).
 * `custom`, `usage` and `attempt`: what user code said while it ran (an emitted event, reported
 * spending, a failed try), each an instant under the node's or the tool call's span.
 */
export const spanKindSchema = z.enum([
  'run',
  'node',
  'model',
  'tool',
  'request',
  'retrieval',
  'context',
  'memory',
  'custom',
  'usage',
  'attempt',
]);
export const spanStatusSchema = z.enum(['running', 'completed', 'failed', 'canceled']);

export const traceSpanSchema = z.object({
  spanId: z.string(),
  parentSpanId: z.string().nullable(),
  nodeId: z.string().nullable(),
  path: z.string(),
  kind: spanKindSchema,
  nodeType: z.string().nullable(),
  status: spanStatusSchema,
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  durationMs: z
    .number()
    .nullable()
    .describe('Wall time in ms, from the span’s start to its end (libs/contracts durations); null while it runs.'),
  workingMs: z
    .number()
    .nullable()
    .describe('Working time in ms: wall time less its waits for a person (a request’s whole span is its wait, so 0 would mislead: null).'),
  input: z.unknown(),
  output: z.unknown(),
  error: errorInfoSchema.nullable(),
  usage: usageSchema.nullable(),
  model: z.string().nullable(),
  iteration: z.number().int().nullable(),
  branchId: z.string().nullable(),
  startSeq: z.number().int().nullable(),
  endSeq: z.number().int().nullable(),
});
export type TraceSpan = z.infer<typeof traceSpanSchema>;

const rolledUsageSchema = usageSchema.extend({ calls: z.number().int().nonnegative() });
export const usageRollupsSchema = z.object({
  byNode: z.record(z.string(), rolledUsageSchema),
  byBranch: z.record(z.string(), rolledUsageSchema),
});
export type UsageRollups = z.infer<typeof usageRollupsSchema>;

export const runTraceSchema = z.object({
  run: runSummarySchema,
  spans: z.array(traceSpanSchema),
  rollups: usageRollupsSchema,
  /**
   * The run's scores, oldest first, as `GET /v1/runs/{id}/scores` lists them: not folded from the
   * log but read beside it; `spanId` names the span (a node or a model call) one is about, null the run.
   */
  scores: z
    .array(scoreSchema)
    .describe('The run’s scores, oldest first: `spanId` names the span (a node or a model call) a score is about; null: the run.'),
});
export type RunTrace = z.infer<typeof runTraceSchema>;

/**
 * Every projection's answer to a data-protection erase: once it has applied the run up to
 * `waitForSeq` (its terminal event), it deletes every row of the run and how far it applied it.
 * `0` for a run whose log a lost store took: what the projection holds of it is erased as it stands.
 */
export const eraseRunQuerySchema = z.object({ runId: runIdSchema, waitForSeq: z.number().int().nonnegative() });
export interface EraseRunResult {
  erased: true;
}

/** `waitForSeq`: answer only once the projection has applied that seq of the run (bounded wait). */
export const traceQuerySchemas = {
  getRun: z.object({ runId: z.string(), waitForSeq: z.number().int().nonnegative().optional() }),
  getTrace: z.object({ runId: z.string(), waitForSeq: z.number().int().nonnegative().optional() }),
  listRuns: z.object({
    /** Only this tenant's runs: every list names the caller's tenant. */
    tenant: tenantIdSchema,
    workflow: z.string().optional(),
    status: runStatusSchema.optional(),
    ...runSearchFields,
    sort: runSortSchema.default('started'),
    order: sortOrderSchema.default('desc'),
    limit: z.number().int().min(1).max(200).default(50),
    cursor: z.string().optional(),
  }),
  /** The fork tree around a run: its ancestors up to the root, and every descendant of that root, of one tenant. */
  lineage: z.object({ tenant: tenantIdSchema, runId: runIdSchema, waitForSeq: z.number().int().nonnegative().optional() }),
  /** What a tenant's runs queued since `since` used: the daily budget check. */
  tenantUsage: z.object({ tenant: tenantIdSchema, since: z.iso.datetime({ offset: true }) }),
  /** The overview dashboards' runs, nodes and errors since `from`. */
  overview: runsOverviewQuerySchema,
  eraseRun: eraseRunQuerySchema,
  ...scoreQuerySchemas,
  ...scoreConfigQuerySchemas,
} as const;
export type TraceQueryOp = keyof typeof traceQuerySchemas;
export type TraceQuery<Op extends TraceQueryOp> = z.input<(typeof traceQuerySchemas)[Op]>;

export interface TraceQueryResults extends ScoreQueryResults, ScoreConfigQueryResults {
  getRun: { run: RunSummary | null };
  getTrace: { trace: RunTrace | null };
  listRuns: { runs: RunSummary[]; nextCursor: string | null };
  /** The tree's runs in no particular order (`runLineage` orders them); `truncated` when some were left out. */
  lineage: { runs: RunSummary[]; truncated: boolean };
  tenantUsage: { usage: Usage; runs: number };
  overview: RunsOverview;
  eraseRun: EraseRunResult;
}

/** Every request/reply answer has this shape, so a caller never has to guess at a failure. */
export type QueryReply<T> =
  | { ok: true; result: T }
  /** `issues`: the fields a refusal names (a score outside its config's range), passed on to the caller's problem. */
  | { ok: false; error: { code: string; message: string; retryAfterSec?: number; issues?: FieldIssue[] } };
