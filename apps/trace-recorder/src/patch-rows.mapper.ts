import type { RunsTable, SpansTable } from '@spindle/db';
import { foldRunClock, runClockDurations, type RunClock } from '@spindle/contracts';
import type { RunPatch, SpanPatch } from '@spindle/projections';
import type { Insertable } from 'kysely';

/** The columns of a stored run the insert half of an upsert must repeat (they are NOT NULL). */
export interface StoredRunIdentity {
  run_id: string;
  workflow: string;
  workflow_version: number;
  status: string;
  queued_at: Date;
  root_span_id: string;
  last_seq: number;
  tenant: string;
  ended_at: Date | null;
  waited_ms: number;
  waiting_since: Date | null;
}

/**
 * The row an upsert proposes for a run patch. Postgres checks NOT NULL on the proposed row even
 * when it then conflicts, so a patch without `run.queued` repeats the stored identity columns
 * (read under the run's lock, so they are current). Without either, the run cannot exist yet.
 */
export function runRowOf(patch: RunPatch, stored: StoredRunIdentity | undefined): Insertable<RunsTable> | undefined {
  const { creation } = patch;
  const identity = creation
    ? {
        workflow: creation.workflow,
        workflow_version: creation.workflowVersion,
        queued_at: creation.queuedAt,
        root_span_id: creation.rootSpanId,
        tenant: creation.tenant,
      }
    : stored && {
        workflow: stored.workflow,
        workflow_version: stored.workflow_version,
        queued_at: stored.queued_at,
        root_span_id: stored.root_span_id,
        tenant: stored.tenant,
      };
  if (!identity) return undefined;
  return {
    run_id: patch.runId,
    ...identity,
    status: patch.status ?? stored?.status ?? 'queued',
    started_at: patch.startedAt ?? null,
    ended_at: patch.endedAt ?? null,
    ...clockColumnsOf(patch, identity.queued_at, stored),
    input_tokens: patch.usage.inputTokens,
    output_tokens: patch.usage.outputTokens,
    total_tokens: patch.usage.totalTokens,
    cost_usd: Math.round((patch.usage.costUsd ?? 0) * 1e9) / 1e9,
    cached_input_tokens: patch.usage.cachedInputTokens ?? 0,
    cache_write_tokens: patch.usage.cacheWriteTokens ?? 0,
    reasoning_tokens: patch.usage.reasoningTokens ?? 0,
    unpriced_calls: patch.usage.unpricedCalls ?? 0,
    error: jsonb(patch.error),
    last_seq: patch.lastSeq,
    forked_from: jsonb(creation?.forkedFrom ?? undefined),
    started_by: jsonb(creation?.startedBy ?? undefined),
    canceled_by: jsonb(patch.canceledBy),
    parameters: jsonb(creation?.parameters ?? undefined),
  };
}

/**
 * The run's clock after this batch: the stored one (read under the run's lock) with the batch's
 * clock events folded on, and its wall and working time once the run has ended.
 */
function clockColumnsOf(patch: RunPatch, queuedAt: Date | string, stored: StoredRunIdentity | undefined) {
  const start: RunClock = {
    startMs: new Date(queuedAt).getTime(),
    endMs: stored?.ended_at ? stored.ended_at.getTime() : null,
    waitedMs: Number(stored?.waited_ms ?? 0),
    waitingSinceMs: stored?.waiting_since ? stored.waiting_since.getTime() : null,
  };
  const clock = patch.clockEvents.reduce(foldRunClock, start);
  const ended = clock.endMs === null ? undefined : runClockDurations(clock, clock.endMs);
  return {
    wall_ms: ended?.wallMs ?? null,
    working_ms: ended?.workingMs ?? null,
    waited_ms: clock.waitedMs,
    waiting_since: clock.waitingSinceMs === null ? null : new Date(clock.waitingSinceMs).toISOString(),
  };
}

export function spanRowOf(patch: SpanPatch): Insertable<SpansTable> {
  return {
    run_id: patch.runId,
    span_id: patch.spanId,
    parent_span_id: patch.parentSpanId ?? null,
    node_id: patch.nodeId ?? null,
    path: patch.path,
    kind: patch.kind,
    node_type: patch.nodeType ?? null,
    status: patch.status,
    started_at: patch.startedAt ?? null,
    ended_at: patch.endedAt ?? null,
    duration_ms: patch.durationMs ?? null,
    start_seq: patch.startSeq ?? null,
    end_seq: patch.endSeq ?? null,
    input: jsonb(patch.input),
    output: jsonb(patch.output),
    error: jsonb(patch.error),
    usage: jsonb(patch.usage),
    model: patch.model ?? null,
    iteration: patch.iteration ?? null,
    branch_id: patch.branchId ?? null,
  };
}

// `\u0000` is valid JSON but jsonb rejects it, and model output does contain it now and then;
// one such event must not stall the projection. Only an escape that is not itself escaped
// (an even number of backslashes before it) is a NUL.
const NUL_ESCAPE = /(?<=(?:^|[^\\])(?:\\\\)*)\\u0000/g;

/** JSON text for a jsonb column; `undefined` (absent) is SQL NULL, JSON `null` stays JSON. */
export function jsonb(value: unknown): string | null {
  return value === undefined ? null : jsonText(value);
}

export function jsonText(value: NonNullable<unknown> | null): string {
  const json = JSON.stringify(value);
  // The lookbehind scan costs on every row (it was a top frame of the recorder's profile); a NUL is rare.
  return json.includes('\\u0000') ? json.replace(NUL_ESCAPE, '\\ufffd') : json;
}
