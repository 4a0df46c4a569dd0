import type { ErrorInfo, RunEvent, RunStatus, RunTrace, TraceSpan, Usage } from '@spindle/contracts';

/**
 * The oracle of the trace projection: what a valid run log means as a trace (the run and its
 * spans), written from the log's meaning and independently of `projectEvents`, so a projection
 * (pure or stored) can be checked against it.
 */

export interface ReferenceRun {
  workflow: { name: string; version: number };
  queuedAt: string;
  status: RunStatus;
  startedAt: string | null;
  endedAt: string | null;
  durationMs: number | null;
  error: ErrorInfo | null;
  usage: Required<Usage>;
  lastSeq: number;
}

export interface ReferenceSpan {
  spanId: string;
  kind: TraceSpan['kind'];
  status: TraceSpan['status'];
  parentSpanId: string | null;
  nodeId: string | null;
  path: string;
  nodeType: string | null;
  model: string | null;
  iteration: number | null;
  branchId: string | null;
  startSeq: number | null;
  endSeq: number | null;
  startedAt: string | null;
  endedAt: string | null;
  durationMs: number | null;
  error: ErrorInfo | null;
  usage: Usage | null;
}

export interface ReferenceTrace {
  run: ReferenceRun;
  /** Sorted by span id. */
  spans: ReferenceSpan[];
}

export interface ReferenceFoldOptions {
  /**
   * What a span still open when the run has ended shows: `running` as the pure fold leaves it, or
   * `canceled` at the run's end time as the stored trace marks it.
   */
  orphans: 'running' | 'canceled';
}

/** The run's status right after a lifecycle event; undefined for any other event. */
function lifecycleStatus(e: RunEvent): RunStatus | undefined {
  switch (e.type) {
    case 'run.queued':
    case 'run.yielded':
      return 'queued';
    case 'run.started':
    case 'run.resumed':
      return 'running';
    case 'run.awaiting':
      return e.data.reason === 'tool_approval' ? 'awaiting_approval' : 'awaiting_input';
    case 'run.completed':
      return 'completed';
    case 'run.failed':
      return 'failed';
    case 'run.canceled':
      return 'canceled';
    default:
      return undefined;
  }
}
const opening = new Set<RunEvent['type']>([
  'run.queued',
  'node.started',
  'model.started',
  'tool.called',
  'input.requested',
  'approval.requested',
]);
const closing = new Set<RunEvent['type']>([
  'run.completed',
  'run.failed',
  'run.canceled',
  'node.completed',
  'node.failed',
  'model.completed',
  'model.failed',
  'tool.returned',
  'input.answered',
  'approval.resolved',
]);
const isRequestEvent = (
  e: RunEvent,
): e is Extract<RunEvent, { type: 'input.requested' | 'input.answered' | 'approval.requested' | 'approval.resolved' }> =>
  e.type === 'input.requested' || e.type === 'input.answered' || e.type === 'approval.requested' || e.type === 'approval.resolved';
/** A request is a span of its own, named by its request id, under the span of the node that asked. */
const spanIdOf = (e: RunEvent): string => (isRequestEvent(e) ? e.data.requestId : e.spanId);
const kindOf = (type: RunEvent['type']): TraceSpan['kind'] =>
  type.startsWith('run.')
    ? 'run'
    : type.startsWith('input.') || type.startsWith('approval.')
      ? 'request'
      : (type.split('.')[0] as TraceSpan['kind']);

/**
 * What the trace of a VALID, whole run log (seq 1 to n, as `runLogArbitrary` makes) must show, read
 * straight off the log: the run is in the state its last lifecycle event put it in, its tokens are
 * the sum over completed model calls, and each span runs from the event that opened it to the one
 * that closed it, if any.
 */
export function referenceFold(log: readonly RunEvent[], options: ReferenceFoldOptions): ReferenceTrace {
  const queuedEvent = log.find((e) => e.type === 'run.queued');
  if (!queuedEvent || queuedEvent.type !== 'run.queued') throw new Error('a run log starts with run.queued');
  const statuses = log.map(lifecycleStatus).filter((s) => s !== undefined);
  const terminal = log.find((e) => e.type === 'run.completed' || e.type === 'run.failed' || e.type === 'run.canceled');
  const firstStart = log.find((e) => e.type === 'run.started');

  const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, costUsd: 0 };
  for (const e of log) {
    if (e.type !== 'model.completed') continue;
    usage.inputTokens += e.data.usage.inputTokens;
    usage.outputTokens += e.data.usage.outputTokens;
    usage.totalTokens += e.data.usage.totalTokens;
    usage.costUsd += e.data.usage.costUsd ?? 0;
  }

  const run: ReferenceRun = {
    workflow: { ...queuedEvent.data.workflow },
    queuedAt: queuedEvent.at,
    status: statuses[statuses.length - 1],
    startedAt: firstStart?.at ?? null,
    endedAt: terminal?.at ?? null,
    durationMs: terminal ? durationOf(terminal) : null,
    error: terminal ? errorOf(terminal) : null,
    usage,
    lastSeq: Math.max(...log.map((e) => e.seq)),
  };

  const spanIds = [...new Set(log.filter((e) => opening.has(e.type)).map(spanIdOf))].sort();
  const spans = spanIds.map((spanId): ReferenceSpan => {
    const start = log.filter((e) => spanIdOf(e) === spanId && opening.has(e.type))[0];
    const end = log.find((e) => spanIdOf(e) === spanId && closing.has(e.type));
    const orphan = !end && terminal !== undefined && start.type !== 'run.queued' && options.orphans === 'canceled';
    return {
      spanId,
      kind: kindOf(start.type),
      status: end ? spanStatusOf(end) : orphan ? 'canceled' : 'running',
      parentSpanId: isRequestEvent(start) ? start.spanId : (start.parentSpanId ?? null),
      nodeId: start.nodeId ?? null,
      path: start.path,
      nodeType: nodeTypeOf(start),
      model: start.type === 'model.started' ? start.data.model : null,
      iteration: start.iteration ?? null,
      branchId: start.branchId ?? null,
      startSeq: start.seq,
      endSeq: end?.seq ?? null,
      startedAt: start.at,
      endedAt: end?.at ?? (orphan ? (terminal?.at ?? null) : null),
      durationMs: end ? (isRequestEvent(end) ? Date.parse(end.at) - Date.parse(start.at) : durationOf(end)) : null,
      error: end ? errorOf(end) : null,
      usage: end?.type === 'model.completed' ? end.data.usage : null,
    };
  });
  return { run, spans };
}

function nodeTypeOf(start: RunEvent): string | null {
  switch (start.type) {
    case 'node.started':
      return start.data.nodeType;
    case 'tool.called':
      return start.data.name;
    case 'input.requested':
      return 'input';
    case 'approval.requested':
      return 'approval';
    default:
      return null;
  }
}

function spanStatusOf(end: RunEvent): ReferenceSpan['status'] {
  switch (end.type) {
    case 'input.answered':
    case 'approval.resolved':
      return end.data.timedOut ? 'failed' : 'completed';
    case 'run.completed':
    case 'node.completed':
    case 'model.completed':
      return 'completed';
    case 'run.canceled':
      return 'canceled';
    case 'tool.returned':
      return end.data.error ? 'failed' : 'completed';
    default:
      return 'failed';
  }
}

function durationOf(end: RunEvent): number | null {
  switch (end.type) {
    case 'run.completed':
    case 'run.failed':
    case 'run.canceled':
    case 'node.completed':
    case 'node.failed':
    case 'model.completed':
    case 'model.failed':
    case 'tool.returned':
      return end.data.durationMs ?? null;
    default:
      return null;
  }
}

function errorOf(end: RunEvent): ErrorInfo | null {
  switch (end.type) {
    case 'run.canceled':
      return { code: 'canceled', message: end.data.reason ?? 'canceled' };
    case 'run.failed':
    case 'node.failed':
    case 'model.failed':
      return end.data.error;
    case 'tool.returned':
      return end.data.error ?? null;
    case 'input.answered':
    case 'approval.resolved':
      return end.data.timedOut ? { code: 'input_timeout', message: `nobody answered request ${end.data.requestId} in time` } : null;
    default:
      return null;
  }
}

/** A trace as the recorder serves it, in the reference fold's shape (what the fold can know). */
export function traceView(trace: RunTrace): ReferenceTrace {
  const { run } = trace;
  return {
    run: {
      workflow: run.workflow,
      queuedAt: run.queuedAt,
      status: run.status,
      startedAt: run.startedAt,
      endedAt: run.endedAt,
      durationMs: run.durationMs,
      error: run.error,
      usage: { ...run.usage, costUsd: run.usage.costUsd ?? 0 },
      lastSeq: run.lastSeq,
    },
    spans: trace.spans
      .map((s) => ({
        spanId: s.spanId,
        kind: s.kind,
        status: s.status,
        parentSpanId: s.parentSpanId,
        nodeId: s.nodeId,
        path: s.path,
        nodeType: s.nodeType,
        model: s.model,
        iteration: s.iteration,
        branchId: s.branchId,
        startSeq: s.startSeq,
        endSeq: s.endSeq,
        startedAt: s.startedAt,
        endedAt: s.endedAt,
        durationMs: s.durationMs,
        error: s.error,
        usage: s.usage,
      }))
      .sort((a, b) => (a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0)),
  };
}
