import {
  runClockDurations,
  spanDurations,
  requestWaitsByParent,
  type Actor,
  type ErrorInfo,
  type RunStatus,
  type RunSummary,
  type RunTrace,
  type TraceSpan,
  type Usage,
} from '@spindle/contracts';
import { rollUpUsage } from './usage-rollups';

/** Timestamps as the driver returns them (`Date` from pg) or as ISO text. */
type StoredTime = Date | string;
/** pg returns `bigint` columns as strings so large values survive; they are counts here. */
type StoredCount = number | string | bigint;

/** A `runs` row as read back from the store. */
export interface StoredRunRow {
  run_id: string;
  workflow: string;
  workflow_version: number;
  status: string;
  queued_at: StoredTime;
  started_at: StoredTime | null;
  ended_at: StoredTime | null;
  /** Absent in rows stored before the run's clock existed (they count no wait). */
  waited_ms?: number | string;
  waiting_since?: StoredTime | null;
  input_tokens: StoredCount;
  output_tokens: StoredCount;
  total_tokens: StoredCount;
  cost_usd: number | string;
  /** Absent in rows stored before the usage details existed. */
  cached_input_tokens?: StoredCount;
  cache_write_tokens?: StoredCount;
  reasoning_tokens?: StoredCount;
  unpriced_calls?: StoredCount;
  error: unknown;
  last_seq: StoredCount;
  root_span_id: string;
  forked_from: unknown;
  tenant: string;
  started_by: unknown;
  canceled_by: unknown;
}

/** A `spans` row as read back from the store. */
export interface StoredSpanRow {
  span_id: string;
  parent_span_id: string | null;
  node_id: string | null;
  path: string;
  kind: string;
  node_type: string | null;
  status: string;
  started_at: StoredTime | null;
  ended_at: StoredTime | null;
  duration_ms: number | string | null;
  start_seq: StoredCount | null;
  end_seq: StoredCount | null;
  input: unknown;
  output: unknown;
  error: unknown;
  usage: unknown;
  model: string | null;
  iteration: StoredCount | null;
  branch_id: string | null;
}

/** A run as the list and the API give it; `now` is what a run still going counts its durations to. */
export function toRunSummary(row: StoredRunRow, now: number): RunSummary {
  const { wallMs, workingMs } = runClockDurations(
    {
      startMs: Date.parse(isoTime(row.queued_at)),
      endMs: row.ended_at === null ? null : Date.parse(isoTime(row.ended_at)),
      waitedMs: Number(row.waited_ms ?? 0),
      waitingSinceMs: row.waiting_since ? Date.parse(isoTime(row.waiting_since)) : null,
    },
    now,
  );
  return {
    runId: row.run_id,
    workflow: { name: row.workflow, version: Number(row.workflow_version) },
    status: row.status as RunStatus,
    queuedAt: isoTime(row.queued_at),
    startedAt: isoTimeOrNull(row.started_at),
    endedAt: isoTimeOrNull(row.ended_at),
    wallMs,
    workingMs,
    usage: storedUsage(row),
    error: (row.error ?? null) as ErrorInfo | null,
    lastSeq: Number(row.last_seq),
    forkedFrom: (row.forked_from ?? null) as RunSummary['forkedFrom'],
    tenant: row.tenant,
    startedBy: (row.started_by ?? null) as Actor | null,
    canceledBy: (row.canceled_by ?? null) as Actor | null,
  };
}

/** The run's totals; a detail shows only where some call reported it, `unpricedCalls` only when a call had no price. */
function storedUsage(row: StoredRunRow): Usage {
  const usage: Usage = {
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    totalTokens: Number(row.total_tokens),
    costUsd: Number(row.cost_usd),
  };
  const details = {
    cachedInputTokens: row.cached_input_tokens,
    cacheWriteTokens: row.cache_write_tokens,
    reasoningTokens: row.reasoning_tokens,
    unpricedCalls: row.unpriced_calls,
  } as const;
  for (const [key, stored] of Object.entries(details) as Array<[keyof typeof details, StoredCount | undefined]>) {
    if (Number(stored ?? 0) > 0) usage[key] = Number(stored);
  }
  return usage;
}

export function toTraceSpan(row: StoredSpanRow): TraceSpan {
  const startedAt = isoTimeOrNull(row.started_at);
  const endedAt = isoTimeOrNull(row.ended_at);
  // A span that ended by its own event lasts its wall time, start to end (libs/contracts durations);
  // the figure an executor reported of itself is not shown beside it under the same name.
  const wallMs =
    row.end_seq !== null && startedAt !== null && endedAt !== null ? Math.max(0, Date.parse(endedAt) - Date.parse(startedAt)) : null;
  return {
    spanId: row.span_id,
    parentSpanId: row.parent_span_id,
    nodeId: row.node_id,
    path: row.path,
    kind: row.kind as TraceSpan['kind'],
    nodeType: row.node_type,
    status: row.status as TraceSpan['status'],
    startedAt,
    endedAt,
    durationMs: wallMs ?? numberOrNull(row.duration_ms),
    workingMs: row.kind === 'request' ? null : wallMs,
    input: row.input ?? null,
    output: row.output ?? null,
    error: (row.error ?? null) as ErrorInfo | null,
    usage: (row.usage ?? null) as Usage | null,
    model: row.model,
    iteration: numberOrNull(row.iteration),
    branchId: row.branch_id,
    startSeq: numberOrNull(row.start_seq),
    endSeq: numberOrNull(row.end_seq),
  };
}

/** What the log makes of a run: the trace less its scores, which are not folded from the log but kept beside it. */
export type FoldedTrace = Omit<RunTrace, 'scores'>;

/** The run and its spans in log order: by the seq that opened each span, then by span id. */
export function assembleTrace(run: StoredRunRow, spans: readonly StoredSpanRow[], now: number): FoldedTrace {
  const summary = toRunSummary(run, now);
  const traceSpans = spans.map(toTraceSpan).sort(byStartSeqThenSpanId);
  const waits = requestWaitsByParent(traceSpans, now);
  for (const span of traceSpans) {
    // An ended run's span lasts the run's wall and working time, the numbers the list and the header give.
    if (span.spanId === run.root_span_id) {
      if (summary.endedAt !== null) Object.assign(span, { durationMs: summary.wallMs, workingMs: summary.workingMs });
    } else if (span.kind !== 'request' && span.durationMs !== null && span.startedAt !== null && span.endedAt !== null) {
      span.workingMs = spanDurations(Date.parse(span.startedAt), Date.parse(span.endedAt), waits.get(span.spanId) ?? [], now).workingMs;
    }
  }
  return { run: summary, spans: traceSpans, rollups: rollUpUsage(traceSpans) };
}

function byStartSeqThenSpanId(a: TraceSpan, b: TraceSpan): number {
  // A span whose start is not in the log (yet) sorts after every opened one.
  const sa = a.startSeq ?? Number.MAX_SAFE_INTEGER;
  const sb = b.startSeq ?? Number.MAX_SAFE_INTEGER;
  if (sa !== sb) return sa - sb;
  return a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0;
}

function isoTime(value: StoredTime): string {
  return new Date(value).toISOString();
}

function isoTimeOrNull(value: StoredTime | null): string | null {
  return value === null ? null : isoTime(value);
}

function numberOrNull(value: StoredCount | null): number | null {
  return value === null ? null : Number(value);
}
