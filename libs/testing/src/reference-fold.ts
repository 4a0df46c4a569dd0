import {
  runDurations,
  type Actor,
  type ErrorInfo,
  type RunEvent,
  type RunEventOf,
  type RunEventType,
  type RunStatus,
  type RunTrace,
  type TraceSpan,
  type Usage,
} from '@spindle/contracts';

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
  /** Wall and working time of an ended run (a run still going counts to now, which a fold cannot know). */
  wallMs: number | null;
  workingMs: number | null;
  error: ErrorInfo | null;
  usage: Usage & { costUsd: number };
  lastSeq: number;
  tenant: string;
  startedBy: Actor | null;
  canceledBy: Actor | null;
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

/** What one event type means to a trace: whether it sets the run's status, opens a span, or closes one. */
interface EventMeaning<T extends RunEventType> {
  /** The run's status right after it (lifecycle events). */
  status?: (e: RunEventOf<T>) => RunStatus;
  /** It opens a span; what the span's `nodeType` then is. */
  opens?: (e: RunEventOf<T>) => string | null;
  /** Whether this event of the type opens or closes a span at all (every one when absent). */
  drawn?: (e: RunEventOf<T>) => boolean;
  /** It closes a span: how the span ended. */
  closes?: {
    status: (e: RunEventOf<T>) => ReferenceSpan['status'];
    durationMs: (e: RunEventOf<T>) => number | null;
    error: (e: RunEventOf<T>) => ErrorInfo | null;
  };
}

const timedOut = (requestId: string): ErrorInfo => ({ code: 'input_timeout', message: `nobody answered request ${requestId} in time` });

/** One entry per event type: a new type does not compile until the oracle says what it means. */
const meanings: { [T in RunEventType]: EventMeaning<T> } = {
  'run.queued': { status: () => 'queued', opens: () => null },
  'run.started': { status: () => 'running' },
  'run.resumed': { status: () => 'running' },
  'run.yielded': { status: () => 'queued' },
  'run.awaiting': { status: (e) => (e.data.reason === 'tool_approval' ? 'awaiting_approval' : 'awaiting_input') },
  'run.completed': {
    status: () => 'completed',
    closes: { status: () => 'completed', durationMs: (e) => e.data.durationMs, error: () => null },
  },
  'run.failed': {
    status: () => 'failed',
    closes: { status: () => 'failed', durationMs: (e) => e.data.durationMs, error: (e) => e.data.error },
  },
  'run.canceled': {
    status: () => 'canceled',
    closes: {
      status: () => 'canceled',
      durationMs: (e) => e.data.durationMs ?? null,
      error: (e) => ({ code: 'canceled', message: e.data.reason ?? 'canceled' }),
    },
  },
  'node.started': { opens: (e) => e.data.nodeType },
  'node.completed': { closes: { status: () => 'completed', durationMs: (e) => e.data.durationMs, error: () => null } },
  'node.failed': { closes: { status: () => 'failed', durationMs: (e) => e.data.durationMs, error: (e) => e.data.error } },
  'model.started': { opens: () => null },
  'model.completed': { closes: { status: () => 'completed', durationMs: (e) => e.data.durationMs, error: () => null } },
  'model.failed': { closes: { status: () => 'failed', durationMs: (e) => e.data.durationMs, error: (e) => e.data.error } },
  'tool.called': { opens: (e) => e.data.name },
  'tool.returned': {
    closes: {
      status: (e) => (e.data.error ? 'failed' : 'completed'),
      durationMs: (e) => e.data.durationMs,
      error: (e) => e.data.error ?? null,
    },
  },
  'input.requested': { opens: () => 'input' },
  'approval.requested': { opens: () => 'approval' },
  'input.answered': {
    closes: {
      status: (e) => (e.data.timedOut ? 'failed' : 'completed'),
      durationMs: () => null,
      error: (e) => (e.data.timedOut ? timedOut(e.data.requestId) : null),
    },
  },
  'approval.resolved': {
    closes: {
      status: (e) => (e.data.timedOut ? 'failed' : 'completed'),
      durationMs: () => null,
      error: (e) => (e.data.timedOut ? timedOut(e.data.requestId) : null),
    },
  },
  'loop.iteration': {},
  'branch.started': {},
  'branch.completed': {},
  'checkpoint.saved': {},
  // An instant: the event opens its span and closes it.
  'context.truncated': {
    opens: (e) => e.data.kind,
    closes: { status: () => 'completed', durationMs: () => 0, error: () => null },
  },
  'memory.compacted': {
    opens: (e) => e.data.memoryKey,
    closes: { status: () => 'completed', durationMs: () => 0, error: () => null },
  },
  'retrieval.completed': {
    opens: (e) => e.data.knowledgeBase,
    closes: { status: () => 'completed', durationMs: (e) => e.data.durationMs, error: () => null },
  },
  // What user code said: each is an instant of its own under the code's span.
  'usage.reported': {
    opens: (e) => e.data.source.name,
    closes: { status: () => 'completed', durationMs: () => 0, error: () => null },
  },
  'attempt.failed': {
    opens: (e) => e.data.name,
    closes: { status: () => 'failed', durationMs: () => 0, error: (e) => e.data.error },
  },
  // Only `ctx.emit` names its event; an unnamed custom event is a bare fact with no span.
  custom: {
    drawn: (e) => e.data.name !== undefined,
    opens: (e) => e.data.name ?? null,
    closes: { status: () => 'completed', durationMs: () => 0, error: () => null },
  },
};

const meaningOf = <T extends RunEventType>(e: RunEventOf<T>) => meanings[e.type as T] as EventMeaning<T>;
const lifecycleStatus = (e: RunEvent): RunStatus | undefined => meaningOf(e).status?.(e);
const drawn = (e: RunEvent): boolean => meaningOf(e).drawn?.(e) ?? true;
const opens = (e: RunEvent): boolean => meaningOf(e).opens !== undefined && drawn(e);
const closes = (e: RunEvent): boolean => meaningOf(e).closes !== undefined && drawn(e);
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
 * the sum over completed model calls and reported usage, and each span runs from the event that opened it to the one
 * that closed it, if any.
 */
export function referenceFold(log: readonly RunEvent[], options: ReferenceFoldOptions): ReferenceTrace {
  const queuedEvent = log.find((e) => e.type === 'run.queued');
  if (!queuedEvent || queuedEvent.type !== 'run.queued') throw new Error('a run log starts with run.queued');
  const statuses = log.map(lifecycleStatus).filter((s) => s !== undefined);
  const terminal = log.find((e) => e.type === 'run.completed' || e.type === 'run.failed' || e.type === 'run.canceled');
  const firstStart = log.find((e) => e.type === 'run.started');

  const sums = {
    inputTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
    costUsd: 0,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
  let unpricedCalls = 0;
  // Model calls and what user code reported spending, alike.
  for (const e of log) {
    if (e.type !== 'model.completed' && e.type !== 'usage.reported') continue;
    // A replay's answer served from its recording was not spent again.
    if (e.type === 'model.completed' && e.data.replayedFrom) continue;
    for (const key of Object.keys(sums) as Array<keyof typeof sums>) sums[key] += e.data.usage[key] ?? 0;
    unpricedCalls += e.data.usage.unpricedCalls ?? (e.data.usage.costUsd === undefined ? 1 : 0);
  }
  // Details and unpriced calls show only when some call had them.
  const usage = Object.fromEntries(
    Object.entries({ ...sums, unpricedCalls }).filter(
      ([key, n]) => n > 0 || ['inputTokens', 'outputTokens', 'totalTokens', 'costUsd'].includes(key),
    ),
  ) as ReferenceRun['usage'];

  const ended = terminal ? runDurations(log, Date.parse(terminal.at)) : undefined;
  const run: ReferenceRun = {
    workflow: { ...queuedEvent.data.workflow },
    queuedAt: queuedEvent.at,
    status: statuses[statuses.length - 1],
    startedAt: firstStart?.at ?? null,
    endedAt: terminal?.at ?? null,
    // The one definition of wall and working time (libs/contracts durations) is the oracle's too.
    wallMs: ended?.wallMs ?? null,
    workingMs: ended?.workingMs ?? null,
    error: terminal ? meaningOf(terminal).closes!.error(terminal) : null,
    usage,
    lastSeq: Math.max(...log.map((e) => e.seq)),
    tenant: queuedEvent.data.tenant ?? 'default',
    startedBy: queuedEvent.data.startedBy ?? null,
    canceledBy: terminal?.type === 'run.canceled' ? (terminal.data.canceledBy ?? null) : null,
  };

  const spanIds = [...new Set(log.filter(opens).map(spanIdOf))].sort();
  const spans = spanIds.map((spanId): ReferenceSpan => {
    const start = log.filter((e) => spanIdOf(e) === spanId && opens(e))[0];
    const end = log.find((e) => spanIdOf(e) === spanId && closes(e));
    const orphan = !end && terminal !== undefined && start.type !== 'run.queued' && options.orphans === 'canceled';
    return {
      spanId,
      kind: kindOf(start.type),
      status: end ? meaningOf(end).closes!.status(end) : orphan ? 'canceled' : 'running',
      parentSpanId: isRequestEvent(start) ? start.spanId : (start.parentSpanId ?? null),
      nodeId: start.nodeId ?? null,
      path: start.path,
      nodeType: meaningOf(start).opens!(start),
      model: start.type === 'model.started' ? start.data.model : null,
      iteration: start.iteration ?? null,
      branchId: start.branchId ?? null,
      startSeq: start.seq,
      endSeq: end?.seq ?? null,
      startedAt: start.at,
      endedAt: end?.at ?? (orphan ? (terminal?.at ?? null) : null),
      // Wall time: the run's (libs/contracts durations), or a span's start to its end.
      durationMs: !end
        ? null
        : start.type === 'run.queued'
          ? (ended?.wallMs ?? null)
          : Math.max(0, Date.parse(end.at) - Date.parse(start.at)),
      error: end ? meaningOf(end).closes!.error(end) : null,
      usage: end?.type === 'model.completed' || end?.type === 'usage.reported' ? end.data.usage : null,
    };
  });
  return { run, spans };
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
      wallMs: run.endedAt ? run.wallMs : null,
      workingMs: run.endedAt ? run.workingMs : null,
      error: run.error,
      usage: { ...run.usage, costUsd: run.usage.costUsd ?? 0 },
      lastSeq: run.lastSeq,
      tenant: run.tenant,
      startedBy: run.startedBy,
      canceledBy: run.canceledBy,
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
