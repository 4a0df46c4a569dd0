import type { Actor, ErrorInfo, RunStatus, TraceSpan, Usage } from '@spindle/contracts';

export type SpanKind = TraceSpan['kind'];
export type SpanStatus = TraceSpan['status'];

/** What `run.queued` fixes once for the run's whole life. */
export interface RunCreation {
  workflow: string;
  workflowVersion: number;
  queuedAt: string;
  /** The `run.queued` event's span: the run's root span. */
  rootSpanId: string;
  forkedFrom: { runId: string; seq: number; checkpointId?: string; forkedBy?: Actor } | null;
  tenant: string;
  startedBy: Actor | null;
  /** The run's parameters, for the list's parameter filter. */
  parameters: Record<string, unknown> | null;
}

/**
 * Changes a batch makes to one `runs` row. An absent (undefined) field keeps the stored value;
 * `usage` is a delta the store adds to its totals; `lastSeq` is the highest seq folded.
 */
export interface RunPatch {
  runId: string;
  /** Present only when the batch holds the run's `run.queued`. */
  creation?: RunCreation;
  status?: RunStatus;
  /** The first start; a resumed run keeps it. */
  startedAt?: string;
  endedAt?: string;
  /**
   * The batch's events that move the run's clock (`RUN_CLOCK_EVENT_TYPES`), in seq order: the store
   * folds them onto the clock it holds, so wall and working time come out as `runDurations` gives them.
   */
  clockEvents: Array<{ type: string; at: string }>;
  error?: ErrorInfo;
  /** Who canceled the run, when someone did. */
  canceledBy?: Actor;
  /** Words of the run's input and output this batch saw, added to the run's search words. */
  searchText?: string;
  usage: Usage;
  lastSeq: number;
}

/**
 * Changes a batch makes to one `spans` row, keyed by `(runId, spanId)`. The envelope fields
 * (`kind`, `path`, `status`) are always known, so a span whose start came in an earlier batch
 * can still be written; every other absent field keeps the stored value.
 */
export interface SpanPatch {
  runId: string;
  spanId: string;
  kind: SpanKind;
  path: string;
  status: SpanStatus;
  parentSpanId?: string;
  nodeId?: string;
  /** The node's type; for a tool span, the tool's name. */
  nodeType?: string;
  startedAt?: string;
  endedAt?: string;
  durationMs?: number;
  startSeq?: number;
  endSeq?: number;
  input?: unknown;
  output?: unknown;
  error?: ErrorInfo;
  usage?: Usage;
  model?: string;
  iteration?: number;
  branchId?: string;
}

/** Row patches of one batch: at most one per run and one per span. */
export interface RowPatches {
  runs: Map<string, RunPatch>;
  spans: Map<string, SpanPatch>;
}

/** Spans are keyed by run and span id, never by node id: loops and sub-graphs repeat nodes. */
export function spanKey(runId: string, spanId: string): string {
  return `${runId}\u0000${spanId}`;
}
