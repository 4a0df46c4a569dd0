import { onRunEvent, type ErrorInfo, type RunEvent, type RunEventHandlers, type RunEventOf, type Usage } from '@spindle/contracts';
import type { ModelResult, RetrievalAnswer } from '../ports';
import type { ContextCut } from '../context/assemble-prompt';

export type RecordedOutcome = { ok: true; delta: Record<string, unknown>; handle: string } | { ok: false; error: ErrorInfo };
export type RecordedToolOutcome = { ok: true; result: unknown } | { ok: false; error: ErrorInfo };
export type RecordedAnswer = RunEventOf<'input.answered'> | RunEventOf<'approval.resolved'>;

/** One node execution as the log recorded it, and everything recorded under its span. */
export class NodeRecord {
  outcome?: RecordedOutcome;
  readonly modelResults: ModelResult[] = [];
  readonly retrievals: RetrievalAnswer[] = [];
  readonly toolOutcomes = new Map<string, RecordedToolOutcome>();
  readonly branchesStarted = new Set<string>();
  readonly branchesCompleted = new Set<string>();
  readonly iterations = new Set<number>();
  readonly inputRequests: Array<RunEventOf<'input.requested'>> = [];
  readonly approvalRequests = new Map<string, RunEventOf<'approval.requested'>>();
  /** The context cuts recorded before each model call, in call order (see `nextContextCuts`). */
  readonly cutGroups: ContextCut[][] = [];
  /** Cuts recorded after the last `model.started`: made for a call the run stopped before. */
  pendingCuts: ContextCut[] = [];
  /** Whether this execution already recorded compacting its conversation (`memory.compacted`). */
  compacted = false;
  private modelCursor = 0;
  private cutCursor = 0;
  private retrievalCursor = 0;

  /** `startedAtMs`: when the execution first started, so a re-entered node's duration is its whole span. */
  constructor(
    readonly spanId: string,
    readonly startedSeq: number,
    readonly startedAtMs: number,
  ) {}

  /** The next model call's recorded result, in call order; undefined once the record runs out. */
  nextModelResult(): ModelResult | undefined {
    return this.modelResults[this.modelCursor++];
  }

  /**
   * The cuts recorded for the next model call, in call order: `[]` for a call made uncut, the
   * trailing cuts for the call the run stopped before making, undefined once the record runs out.
   */
  nextContextCuts(): ContextCut[] | undefined {
    const index = this.cutCursor++;
    if (index < this.cutGroups.length) return this.cutGroups[index];
    return index === this.cutGroups.length && this.pendingCuts.length > 0 ? this.pendingCuts : undefined;
  }

  /** The next retrieval's recorded answer, in call order: a resumed node never searches again. */
  nextRetrieval(): RetrievalAnswer | undefined {
    return this.retrievals[this.retrievalCursor++];
  }
}

/**
 * What a run already did, read from its log, so a resumed run continues where it stopped
 * instead of doing it again: a node that completed (or failed) returns its recorded result
 * without running; a node that had started re-enters under its own span, and inside it every
 * model call, tool call, branch, iteration and request already recorded is taken from the log.
 *
 * Node executions are identified by path and occurrence (the n-th execution of that path),
 * which a deterministic walk of the same graph reproduces, even with branches interleaving.
 */
export class RunHistory {
  private readonly nodes = new Map<string, NodeRecord>();
  private readonly bySpan = new Map<string, NodeRecord>();
  private readonly answers = new Map<string, RecordedAnswer[]>();
  readonly checkpoints = new Set<string>();
  /** The run's running totals as last recorded: the ledger continues from them. */
  readonly usage?: Usage;
  /** How long runners have actively worked on the run (waits excluded), for duration budgets. */
  readonly activeMs: number;

  constructor(events: readonly RunEvent[]) {
    const occurrences = new Map<string, number>();
    let usage: Usage | undefined;
    let active = 0;
    let segmentStart: number | undefined;
    const skip = () => undefined;
    const on: RunEventHandlers = {
      'node.started': (e) => {
        const n = occurrences.get(e.path) ?? 0;
        occurrences.set(e.path, n + 1);
        const record = new NodeRecord(e.spanId, e.seq, Date.parse(e.at));
        this.nodes.set(executionKey(e.path, n), record);
        this.bySpan.set(e.spanId, record);
      },
      'node.completed': (e) => this.setOutcome(e.spanId, { ok: true, delta: e.data.output, handle: e.data.handle ?? 'default' }),
      'node.failed': (e) => this.setOutcome(e.spanId, { ok: false, error: e.data.error }),
      'model.started': (e) => {
        const record = this.parent(e);
        if (!record) return;
        record.cutGroups.push(record.pendingCuts);
        record.pendingCuts = [];
      },
      'model.completed': (e) => {
        usage = e.data.runUsage ?? usage;
        this.parent(e)?.modelResults.push({
          text: e.data.text,
          ...(e.data.reasoning !== undefined && { reasoning: e.data.reasoning }),
          usage: e.data.usage,
          finishReason: e.data.finishReason,
          toolCalls: e.data.toolCalls ?? [],
          costUsd: e.data.usage.costUsd,
        });
      },
      // A failed call is not replayed: the node that made it failed, or retries it.
      'model.failed': skip,
      'tool.called': skip,
      'tool.returned': (e) =>
        this.parent(e)?.toolOutcomes.set(
          e.data.callId,
          e.data.error ? { ok: false, error: e.data.error } : { ok: true, result: e.data.result ?? null },
        ),
      'branch.started': (e) => this.bySpan.get(e.spanId)?.branchesStarted.add(e.data.branchId),
      'branch.completed': (e) => this.bySpan.get(e.spanId)?.branchesCompleted.add(e.data.branchId),
      'loop.iteration': (e) => this.bySpan.get(e.spanId)?.iterations.add(e.data.iteration),
      'input.requested': (e) => this.bySpan.get(e.spanId)?.inputRequests.push(e),
      'approval.requested': (e) => this.bySpan.get(e.spanId)?.approvalRequests.set(e.data.call.callId, e),
      'input.answered': (e) => this.answers.set(e.data.requestId, [...(this.answers.get(e.data.requestId) ?? []), e]),
      'approval.resolved': (e) => this.answers.set(e.data.requestId, [...(this.answers.get(e.data.requestId) ?? []), e]),
      'checkpoint.saved': (e) => this.checkpoints.add(e.data.checkpointId),
      'run.started': (e) => (segmentStart = Date.parse(e.at)),
      'run.resumed': (e) => (segmentStart = Date.parse(e.at)),
      'run.awaiting': (e) => endSegment(e),
      'run.yielded': (e) => endSegment(e),
      'run.queued': skip,
      'run.completed': skip,
      'run.failed': skip,
      'run.canceled': skip,
      'context.truncated': (e) => this.parent(e)?.pendingCuts.push(e.data),
      'memory.compacted': (e) => {
        const record = this.parent(e);
        if (record) record.compacted = true;
      },
      'retrieval.completed': (e) =>
        this.parent(e)?.retrievals.push({
          retriever: e.data.retriever,
          ...(e.data.version !== undefined && { version: e.data.version }),
          chunks: e.data.chunks,
        }),
      // User code's reported spending continues the ledger a resumed run starts from.
      'usage.reported': (e) => (usage = e.data.runUsage),
      'attempt.failed': skip,
      custom: skip,
    };
    const endSegment = (e: RunEvent) => {
      if (segmentStart !== undefined) active += Date.parse(e.at) - segmentStart;
      segmentStart = undefined;
    };
    for (const e of events) onRunEvent(on, e);
    const last = events.at(-1);
    if (segmentStart !== undefined && last) active += Date.parse(last.at) - segmentStart;
    this.usage = usage;
    this.activeMs = active;
  }

  /** The recorded n-th execution of the node at `path`, if the log has it. */
  node(path: string, occurrence: number): NodeRecord | undefined {
    return this.nodes.get(executionKey(path, occurrence));
  }

  /** The first answer recorded for a request: later ones (refused or repeated) never count. */
  answerTo(requestId: string): RecordedAnswer | undefined {
    return this.answers.get(requestId)?.[0];
  }

  private setOutcome(spanId: string, outcome: RecordedOutcome) {
    const record = this.bySpan.get(spanId);
    if (record && !record.outcome) record.outcome = outcome;
  }

  private parent(e: RunEvent): NodeRecord | undefined {
    return e.parentSpanId === undefined ? undefined : this.bySpan.get(e.parentSpanId);
  }
}

/** A node execution by path and occurrence (the n-th execution of that path): what a deterministic walk reproduces. */
export function executionKey(path: string, occurrence: number): string {
  return `${path}#${occurrence}`;
}
