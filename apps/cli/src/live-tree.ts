import {
  runDurations,
  spanDurations,
  requestWaitsByParent,
  type ErrorInfo,
  type InputForm,
  type RunEvent,
  type RunStatus,
  type TraceSpan,
} from '@spindle/contracts';
import { projectEvents, type SpanPatch } from '@spindle/projections';
import { answerKindOf, type AnswerKind } from './answer-body';

/** One row of the live tree: a node execution, a model or tool call, or a request to a person. */
export interface LiveTreeNode {
  spanId: string;
  kind: TraceSpan['kind'];
  /** The node id, the model, the tool's name, or the request's kind. */
  label: string;
  /** A node's type (`llm`, `fork`…); absent on calls and requests. */
  nodeType?: string;
  status: TraceSpan['status'];
  /** Model tokens and cost of this span and everything under it. */
  tokens: number;
  costUsd: number;
  /**
   * Wall time (start to end, or to now while it runs) and working time (less the waits for a person
   * under it), as libs/contracts durations define them; absent for a span that has not started.
   */
  wallMs?: number;
  workingMs?: number;
  /** Set on the first span of a fork branch (its branch differs from its parent's). */
  branchId?: string;
  iteration?: number;
  error?: ErrorInfo;
  children: LiveTreeNode[];
}

export interface LiveTree {
  runId: string;
  workflow?: { name: string; version: number };
  status: RunStatus;
  tokens: number;
  costUsd: number;
  /** The run's wall and working time (`runDurations`): the same numbers the runs list and the API give. */
  wallMs: number;
  workingMs: number;
  error?: ErrorInfo;
  lastSeq: number;
  /** Open requests a person must answer before the run goes on. */
  waitingOn: { requestId: string; kind: AnswerKind }[];
  /** The run's spans under its root, in the order they started. */
  nodes: LiveTreeNode[];
}

/**
 * Folds a run's events (in seq order) into the tree the CLI draws: the same fold the trace
 * recorder stores (`projectEvents`), arranged by parent span, with tokens and cost rolled up.
 */
export function foldLiveTree(runId: string, events: readonly RunEvent[], now: number): LiveTree {
  const patches = projectEvents(events);
  const run = patches.runs.get(runId);
  const spans = [...patches.spans.values()].filter((s) => s.runId === runId);
  const spanById = new Map(spans.map((s) => [s.spanId, s]));
  const waitsUnder = requestWaitsByParent(spans, now);
  const nodes = new Map<string, LiveTreeNode>(
    spans.filter((s) => s.kind !== 'run').map((s) => [s.spanId, toTreeNode(s, waitsUnder.get(s.spanId) ?? [], now)]),
  );
  const topLevel: LiveTreeNode[] = [];
  for (const span of [...spans].sort(byStartSeq)) {
    const node = nodes.get(span.spanId);
    if (!node) continue;
    const parentId = span.parentSpanId;
    // A span whose parent is not among the run's spans (the run span itself) is top-level.
    const parent = parentId !== undefined ? nodes.get(parentId) : undefined;
    if (span.branchId === (parentId !== undefined ? spanById.get(parentId)?.branchId : undefined)) delete node.branchId;
    (parent ? parent.children : topLevel).push(node);
  }
  topLevel.forEach(rollUp);
  return {
    runId,
    workflow: run?.creation ? { name: run.creation.workflow, version: run.creation.workflowVersion } : undefined,
    status: run?.status ?? 'queued',
    tokens: run?.usage.totalTokens ?? 0,
    costUsd: run?.usage.costUsd ?? 0,
    ...pickTimes(runDurations(events, now)),
    error: run?.error,
    lastSeq: run?.lastSeq ?? 0,
    waitingOn: spans
      .filter((s) => s.kind === 'request' && s.status === 'running')
      .map((s) => ({ requestId: s.spanId, kind: requestKindOf(s) })),
    nodes: topLevel,
  };
}

/** The kind of answer an open request span takes: a tool approval, or its input form's kind. */
function requestKindOf(span: SpanPatch): AnswerKind {
  if (span.nodeType === 'approval') return 'approval';
  const form = (span.input as { form?: Pick<InputForm, 'kind'> } | undefined)?.form;
  return answerKindOf({ kind: 'input', form: form ? { kind: form.kind } : null });
}

function pickTimes({ wallMs, workingMs }: { wallMs: number; workingMs: number }) {
  return { wallMs, workingMs };
}

function toTreeNode(span: SpanPatch, waits: ReadonlyArray<readonly [number, number]>, now: number): LiveTreeNode {
  const times =
    span.startedAt === undefined
      ? {}
      : pickTimes(
          spanDurations(
            Date.parse(span.startedAt),
            span.endedAt === undefined ? undefined : Date.parse(span.endedAt),
            span.kind === 'request' ? [] : waits,
            now,
          ),
        );
  return {
    spanId: span.spanId,
    kind: span.kind,
    label: labelOf(span),
    nodeType: span.kind === 'node' ? span.nodeType : undefined,
    status: span.status,
    tokens: span.usage?.totalTokens ?? 0,
    costUsd: span.usage?.costUsd ?? 0,
    ...times,
    branchId: span.branchId,
    iteration: span.iteration,
    error: span.error,
    children: [],
  };
}

function labelOf(span: SpanPatch): string {
  if (span.kind === 'model') return span.model ?? 'model';
  if (span.kind === 'tool' || span.kind === 'request') return span.nodeType ?? span.kind;
  return span.nodeId ?? span.spanId;
}

/** A parent's tokens and cost include its children's (a node's model calls, a fork's branches). */
function rollUp(node: LiveTreeNode): void {
  for (const child of node.children) {
    rollUp(child);
    node.tokens += child.tokens;
    node.costUsd += child.costUsd;
  }
}

function byStartSeq(a: SpanPatch, b: SpanPatch): number {
  return (a.startSeq ?? Number.MAX_SAFE_INTEGER) - (b.startSeq ?? Number.MAX_SAFE_INTEGER);
}
