import {
  addCallUsage,
  DEFAULT_TENANT,
  EMPTY_USAGE,
  movesRunClock,
  terminalStatuses,
  type RunEvent,
  type RunEventOf,
  type RunEventType,
  type RunStatus,
} from '@spindle/contracts';
import { spanKey, type RowPatches, type RunPatch, type SpanKind, type SpanPatch } from './row-patches';
import { joinSearchText, searchTextOf } from './search-text';
import { toolCallInput, toolName, toolResult } from './tool-events';

/** What a handler may change: the event's run, and the span the event belongs to. */
interface PatchTarget {
  run: RunPatch;
  /** Creates or updates the event's span (`event.spanId`); undefined fields change nothing. */
  span(kind: SpanKind, fields: Partial<Omit<SpanPatch, 'runId' | 'spanId' | 'kind' | 'path'>>): void;
  /**
   * Creates or updates the span of the request the event asks or answers: its id is the request
   * id, and it hangs under the event's own span (the node that asked).
   */
  request(requestId: string, fields: Partial<Omit<SpanPatch, 'runId' | 'spanId' | 'kind' | 'path'>>): void;
}

type Handler<T extends RunEventType> = (event: RunEventOf<T>, target: PatchTarget) => void;

/**
 * Folds a batch of run events into row patches. Events of one run must be in seq order (they
 * are sorted by seq per run here to be safe); runs are independent of each other. Pure: the
 * same events always give the same patches, which is what makes a rebuild give the same rows.
 */
export function projectEvents(events: readonly RunEvent[]): RowPatches {
  const patches: RowPatches = { runs: new Map(), spans: new Map() };
  for (const event of inSeqOrderPerRun(events)) {
    const run = runPatchFor(patches, event);
    if (movesRunClock(event.type)) run.clockEvents.push({ type: event.type, at: event.at });
    const target: PatchTarget = {
      run,
      span: (kind, fields) => withWallTime(patchSpan(patches, event, kind, fields)),
      request: (requestId, fields) =>
        withWallTime(patchSpan(patches, { ...event, spanId: requestId, parentSpanId: event.spanId }, 'request', fields)),
    };
    (handlers[event.type] as Handler<RunEventType>)(event, target);
  }
  return patches;
}

const ignore = () => undefined;

// Exhaustive on purpose: a new event type does not compile until it is decided here.
const handlers: { [T in RunEventType]: Handler<T> } = {
  'run.queued': (e, { run, span }) => {
    run.creation = {
      workflow: e.data.workflow.name,
      workflowVersion: e.data.workflow.version,
      queuedAt: e.at,
      rootSpanId: e.spanId,
      forkedFrom: e.data.forkedFrom ?? null,
      tenant: e.data.tenant ?? DEFAULT_TENANT,
      startedBy: e.data.startedBy ?? null,
      parameters: e.data.parameters ?? null,
    };
    run.searchText = joinSearchText(run.searchText, searchTextOf(e.data.input));
    setRunStatus(run, 'queued');
    span('run', { status: 'running', startedAt: e.at, startSeq: e.seq, input: e.data.input });
  },
  'run.started': (e, { run }) => {
    setRunStatus(run, 'running');
    run.startedAt ??= e.at;
  },
  'run.awaiting': (e, { run }) => setRunStatus(run, e.data.reason === 'input' ? 'awaiting_input' : 'awaiting_approval'),
  'run.resumed': (_e, { run }) => setRunStatus(run, 'running'),
  // Handed back to the queue by a runner shutting down: waiting for another runner.
  'run.yielded': (_e, { run }) => setRunStatus(run, 'queued'),
  'run.completed': (e, target) => {
    target.run.searchText = joinSearchText(target.run.searchText, searchTextOf(e.data.output));
    endRun(e, target, 'completed', { output: e.data.output });
  },
  'run.failed': (e, target) => endRun(e, target, 'failed', { error: e.data.error }),
  'run.canceled': (e, target) => {
    if (e.data.canceledBy) target.run.canceledBy = e.data.canceledBy;
    endRun(e, target, 'canceled', { error: { code: 'canceled', message: e.data.reason ?? 'canceled' } });
  },

  'node.started': (e, { span }) => span('node', { ...opened(e), nodeType: e.data.nodeType, input: e.data.input }),
  'node.completed': (e, { span }) => span('node', { ...closed(e, 'completed'), nodeType: e.data.nodeType, output: e.data.output }),
  'node.failed': (e, { span }) => span('node', { ...closed(e, 'failed'), nodeType: e.data.nodeType, error: e.data.error }),

  'model.started': (e, { span }) =>
    span('model', {
      ...opened(e),
      model: e.data.model,
      input: withoutUndefined({
        system: e.data.system,
        prompt: e.data.prompt,
        messages: e.data.messages,
        history: e.data.history,
        tools: e.data.tools,
        // By reference: the trace shows how many files the call sent and of which media types.
        attachments: e.data.attachments,
      }),
    }),
  'model.completed': (e, { run, span }) => {
    span('model', {
      ...closed(e, 'completed'),
      model: e.data.model,
      output: withoutUndefined({ text: e.data.text, reasoning: e.data.reasoning, toolCalls: e.data.toolCalls }),
      usage: e.data.usage,
    });
    // Totals add up every call, including a step a resumed run repeated: those tokens were spent.
    // A replay's answer served from its recording was not: its span shows the usage, the run's cost leaves it out.
    if (!e.data.replayedFrom) run.usage = addCallUsage(run.usage, e.data.usage);
  },
  'model.failed': (e, { span }) => span('model', { ...closed(e, 'failed'), model: e.data.model, error: e.data.error }),

  'tool.called': (e, { span }) => span('tool', { ...opened(e), nodeType: toolName(e.data), input: toolCallInput(e.data) }),
  'tool.returned': (e, { span }) => {
    const result = toolResult(e.data);
    const outcome = { output: result.output, error: result.error };
    span('tool', { ...closed(e, result.error ? 'failed' : 'completed'), nodeType: toolName(e.data), ...outcome });
  },

  'input.requested': (e, { request }) =>
    request(e.data.requestId, {
      ...opened(e),
      nodeType: 'input',
      input: withoutUndefined({ prompt: e.data.prompt, form: e.data.form, mode: e.data.mode, expiresAt: e.data.expiresAt }),
    }),
  'input.answered': (e, { request }) =>
    request(
      e.data.requestId,
      e.data.timedOut ? expired(e) : { ...answered(e), output: { answeredBy: e.data.answeredBy, answer: e.data.answer ?? null } },
    ),
  'approval.requested': (e, { request }) =>
    request(e.data.requestId, {
      ...opened(e),
      nodeType: 'approval',
      input: withoutUndefined({ prompt: e.data.prompt, call: e.data.call, mode: e.data.mode, expiresAt: e.data.expiresAt }),
    }),
  'approval.resolved': (e, { request }) =>
    request(
      e.data.requestId,
      e.data.timedOut
        ? expired(e)
        : {
            ...answered(e),
            output: withoutUndefined({ answeredBy: e.data.answeredBy, decision: e.data.decision, message: e.data.message }),
          },
    ),

  // Facts the trace does not draw (yet): they only advance `last_seq`.
  'loop.iteration': ignore,
  'branch.started': ignore,
  'branch.completed': ignore,
  'checkpoint.saved': ignore,
  // A cut and a compaction happen at an instant: each is a span that opens and closes with its event.
  'context.truncated': (e, { span }) =>
    span('context', {
      ...instant(e),
      nodeType: e.data.kind,
      input: { kind: e.data.kind, target: e.data.target, strategy: e.data.strategy },
      output: withoutUndefined({
        tokensBefore: e.data.tokensBefore,
        tokensAfter: e.data.tokensAfter,
        droppedMessages: e.data.droppedMessages,
      }),
    }),
  'memory.compacted': (e, { span }) =>
    span('memory', {
      ...instant(e),
      nodeType: e.data.memoryKey,
      input: {
        memoryKey: e.data.memoryKey,
        trigger: e.data.trigger,
        messagesBefore: e.data.messagesBefore,
        tokensBefore: e.data.tokensBefore,
      },
      output: withoutUndefined({
        messagesAfter: e.data.messagesAfter,
        tokensAfter: e.data.tokensAfter,
        summary: e.data.summary,
        summaryModel: e.data.summaryModel,
      }),
    }),
  // One event is the whole span: the search had ended when it was recorded.
  'retrieval.completed': (e, { span }) =>
    span('retrieval', {
      startedAt: new Date(Date.parse(e.at) - e.data.durationMs).toISOString(),
      startSeq: e.seq,
      ...closed(e, 'completed'),
      nodeType: e.data.knowledgeBase,
      input: withoutUndefined({
        retriever: e.data.retriever,
        knowledgeBase: e.data.knowledgeBase,
        version: e.data.version,
        query: e.data.query,
        topK: e.data.topK,
        minScore: e.data.minScore,
      }),
      output: withoutUndefined({
        chunkCount: e.data.chunkCount,
        topScore: e.data.topScore,
        chunks: e.data.chunks.map((c) => withoutUndefined({ id: c.id, source: c.source, score: c.score, tokens: c.tokens, text: c.text })),
      }),
    }),
  // What user code said while it ran: each an instant under its node's (or tool call's) span.
  'usage.reported': (e, { run, span }) => {
    span('usage', {
      ...instant(e),
      nodeType: e.data.source.name,
      input: withoutUndefined({ source: e.data.source, label: e.data.label, units: e.data.units }),
      usage: e.data.usage,
    });
    // Counted like a model call's usage: the run's cost includes what its code reported spending.
    run.usage = addCallUsage(run.usage, e.data.usage);
  },
  'attempt.failed': (e, { span }) =>
    span('attempt', {
      ...instant(e),
      status: 'failed',
      nodeType: e.data.name,
      input: withoutUndefined({ kind: e.data.kind, name: e.data.name, callId: e.data.callId, attempt: e.data.attempt }),
      output: { retryInMs: e.data.retryInMs },
      error: e.data.error,
    }),
  // Only a named event is user code's (`ctx.emit`); an unnamed one is a bare fact the trace does not draw.
  custom: (e, { span }) =>
    e.data.name === undefined ? undefined : span('custom', { ...instant(e), nodeType: e.data.name, output: e.data.data ?? null }),
};

function endRun(
  e: RunEventOf<'run.completed' | 'run.failed' | 'run.canceled'>,
  { run, span }: PatchTarget,
  status: 'completed' | 'failed' | 'canceled',
  outcome: Pick<SpanPatch, 'output' | 'error'>,
) {
  setRunStatus(run, status);
  run.endedAt = e.at;
  run.error = outcome.error;
  span('run', { ...closed(e, status), ...outcome });
}

/** A terminal status is final: nothing after it (a replayed or stray event) may reopen the run. */
function setRunStatus(run: RunPatch, status: RunStatus) {
  if (run.status !== undefined && terminalStatuses.includes(run.status)) return;
  run.status = status;
}

function instant(e: RunEvent): Pick<SpanPatch, 'status' | 'startedAt' | 'startSeq' | 'endedAt' | 'endSeq'> {
  return { ...opened(e), ...closed(e, 'completed') };
}

function opened(e: RunEvent): Pick<SpanPatch, 'status' | 'startedAt' | 'startSeq'> {
  return { status: 'running', startedAt: e.at, startSeq: e.seq };
}

/**
 * A span's end. Its duration is its wall time, start to end (libs/contracts durations), set by
 * `withWallTime` when the batch holds both; the figure an executor reported of itself is not kept.
 */
function closed(e: RunEvent, status: SpanPatch['status']): Pick<SpanPatch, 'status' | 'endedAt' | 'endSeq'> {
  return { status, endedAt: e.at, endSeq: e.seq };
}

/** A request closes with its answer; how long the person took is read off the two events' times (see `toTraceSpan`). */
function answered(e: RunEvent): Pick<SpanPatch, 'status' | 'endedAt' | 'endSeq'> {
  return { status: 'completed', endedAt: e.at, endSeq: e.seq };
}

/** Nobody answered in time: the request failed, though its node may go on along a `timeout` edge. */
function expired(e: RunEventOf<'input.answered' | 'approval.resolved'>): Pick<SpanPatch, 'status' | 'endedAt' | 'endSeq' | 'error'> {
  return {
    ...answered(e),
    status: 'failed',
    error: { code: 'input_timeout', message: `nobody answered request ${e.data.requestId} in time` },
  };
}

function runPatchFor(patches: RowPatches, event: RunEvent): RunPatch {
  let run = patches.runs.get(event.runId);
  if (!run) {
    run = { runId: event.runId, usage: { ...EMPTY_USAGE, costUsd: 0 }, lastSeq: event.seq, clockEvents: [] };
    patches.runs.set(event.runId, run);
  }
  run.lastSeq = Math.max(run.lastSeq, event.seq);
  return run;
}

function patchSpan(patches: RowPatches, e: RunEvent, kind: SpanKind, fields: Partial<SpanPatch>): SpanPatch | undefined {
  const key = spanKey(e.runId, e.spanId);
  const span: SpanPatch = patches.spans.get(key) ?? { runId: e.runId, spanId: e.spanId, kind, path: e.path, status: 'running' };
  // A closed span never reopens or closes twice: its spanId belongs to one execution.
  if (span.status !== 'running') return undefined;
  assignDefined(span, { parentSpanId: e.parentSpanId, nodeId: e.nodeId, iteration: e.iteration, branchId: e.branchId });
  assignDefined(span, fields);
  patches.spans.set(key, span);
  return span;
}

/**
 * A span's duration is its wall time, start to end, when the batch holds both (`toTraceSpan` does
 * the same for a span whose start and end were stored by different batches); a request's is how
 * long the person took.
 */
function withWallTime(span: SpanPatch | undefined) {
  if (span?.startedAt !== undefined && span.endedAt !== undefined && span.endSeq !== undefined)
    span.durationMs = Math.max(0, Date.parse(span.endedAt) - Date.parse(span.startedAt));
}

// Loops, not Object.entries: the console folds whole logs again as it replays them.
function withoutUndefined<T extends object>(value: T): Partial<T> {
  return assignDefined({}, value);
}

/** Copies the defined fields of `fields` onto `target`: an undefined field changes nothing. */
function assignDefined<T extends object>(target: Partial<T>, fields: Partial<T>): Partial<T> {
  for (const key of Object.keys(fields) as Array<keyof T>) if (fields[key] !== undefined) target[key] = fields[key];
  return target;
}

function inSeqOrderPerRun(events: readonly RunEvent[]): RunEvent[] {
  const firstIndex = new Map<string, number>();
  events.forEach((e, i) => firstIndex.has(e.runId) || firstIndex.set(e.runId, i));
  return [...events].sort((a, b) =>
    a.runId === b.runId ? a.seq - b.seq : (firstIndex.get(a.runId) ?? 0) - (firstIndex.get(b.runId) ?? 0),
  );
}
