import { costLabel, EMPTY_USAGE, terminalStatuses, type RunEvent, type RunEventHandlers } from '@spindle/contracts';
import { projectEvents } from '@spindle/projections';
import { atMs } from './run-view/event-time';
import { NodeStates } from './run-view/node-states';
import { withRecordedContent } from './run-view/recorded-content';
import type { OpenRequest, RunView, SpanView } from './run-view/run-view.types';
import { spanKey, SpanTree } from './run-view/span-tree';

export type { NodeState, OpenRequest, RunView, SpanKind, SpanStatus, SpanView } from './run-view/run-view.types';

/**
 * The run as of its first `cursor` events. Pure and deterministic: live view and replay both
 * derive from a prefix of the same recorded array, so graph, timeline and details agree. The
 * run's status, its usage and what each span holds come from the trace recorder's fold.
 */
export function deriveRunView(all: readonly RunEvent[], cursor = all.length): RunView {
  const end = Math.max(0, Math.min(cursor, all.length));
  const view: RunView = {
    status: 'queued',
    spans: [],
    byKey: new Map(),
    nodes: new Map(),
    traversed: new Set(),
    requests: [],
    latencyMs: 0,
    usage: EMPTY_USAGE,
    failurePath: new Set(),
    events: end,
  };
  const requests = new Map<string, OpenRequest>();
  const on = viewFolds(view, new SpanTree(view), new NodeStates(view), requests);
  const events = all.slice(0, end);
  for (const e of events) {
    const at = atMs(e);
    view.firstMs ??= at;
    view.lastMs = at;
    (on[e.type] as (event: RunEvent) => void)(e);
  }
  const recorded = projectEvents(events);
  const [run] = recorded.runs.values();
  view.status = run?.status ?? 'queued';
  view.usage = run?.usage ?? EMPTY_USAGE;
  withRecordedContent(view, recorded.spans);
  view.requests = terminalStatuses.includes(view.status) ? [] : [...requests.values()];
  view.latencyMs = view.firstMs !== undefined && view.lastMs !== undefined ? view.lastMs - view.firstMs : 0;
  view.failurePath = failurePath(view);
  return view;
}

/** The run's status after `events` (one run's log), by the trace recorder's rule: a terminal status is final. */
export function runStatusOf(events: readonly RunEvent[]): RunView['status'] {
  const [run] = projectEvents(events).runs.values();
  return run?.status ?? 'queued';
}

/** What each event type does to the view: the span tree and its waits, node states, open requests. */
function viewFolds(view: RunView, spans: SpanTree, nodes: NodeStates, requests: Map<string, OpenRequest>): RunEventHandlers {
  const none = () => undefined;
  const asked = (e: Extract<RunEvent, { type: 'input.requested' | 'approval.requested' }>) => {
    const { prompt } = e.data;
    const kind = e.type === 'input.requested' ? 'input' : 'approval';
    requests.set(e.data.requestId, { requestId: e.data.requestId, kind, nodeId: e.nodeId, prompt, seq: e.seq });
    const span = spans.nodeSpanOf(e);
    if (span && span.status === 'running') span.status = 'waiting';
    // The question is a span of its own under the node that asked, open until it is answered.
    spans.open({ ...e, spanId: e.data.requestId, parentSpanId: e.spanId } as RunEvent, 'request', { label: kind, status: 'waiting' });
    nodes.set(e.nodeId, 'waiting');
  };
  const instant = (e: RunEvent, kind: 'usage' | 'attempt' | 'custom', label: string, status: 'completed' | 'failed' = 'completed') => {
    spans.open(e, kind, { label });
    spans.close(e, status);
  };
  const answered = (e: Extract<RunEvent, { type: 'input.answered' | 'approval.resolved' }>) => {
    requests.delete(e.data.requestId);
    spans.close(e, e.data.timedOut ? 'failed' : 'completed', {}, spanKey(e.data.requestId, e.path));
    const span = spans.nodeSpanOf(e);
    if (span?.status === 'waiting') span.status = 'running';
    nodes.resumed(e.nodeId);
  };
  return {
    'run.queued': (e) => {
      view.runId = e.runId;
      view.workflow = e.data.workflow;
      spans.open(e, 'run', { label: e.data.workflow.name });
    },
    'run.completed': (e) => spans.closeRun(e, 'completed'),
    'run.failed': (e) => spans.closeRun(e, 'failed'),
    'run.canceled': (e) => {
      spans.closeRun(e, 'canceled');
      nodes.canceled();
    },
    'node.started': (e) => {
      const execution = nodes.started(e);
      spans.open(e, 'node', { execution });
    },
    'node.completed': (e) => {
      spans.close(e, 'completed');
      nodes.completed(e);
    },
    'node.failed': (e) => {
      spans.close(e, 'failed');
      nodes.set(e.nodeId, 'failed');
    },
    'branch.started': (e) => void spans.open(e, 'branch', { label: `${e.nodeId}[${e.data.branchId}]` }),
    'branch.completed': (e) => void spans.close(e, e.data.status, { error: e.data.error }),
    'model.started': (e) => void spans.open(e, 'model', { label: e.data.model }),
    'model.completed': (e) => void spans.close(e, 'completed'),
    'model.failed': (e) => void spans.close(e, 'failed'),
    'tool.called': (e) => void spans.open(e, 'tool', { label: e.data.name }),
    'tool.returned': (e) => void spans.close(e, e.data.error ? 'failed' : 'completed'),
    // Instants under their node: a cut of the prompt to fit its budget, a compaction of remembered turns.
    'context.truncated': (e) => {
      spans.open(e, 'context', { label: `${e.data.kind} ${e.data.target}` });
      spans.close(e, 'completed');
    },
    'memory.compacted': (e) => {
      spans.open(e, 'memory', { label: `compacted ${e.data.memoryKey}` });
      spans.close(e, 'completed');
    },
    // One event is the whole search: the span opens and closes on it.
    'retrieval.completed': (e) => {
      spans.open(e, 'retrieval', { label: `retrieve ${e.data.knowledgeBase}` });
      spans.close(e, 'completed');
    },
    // What user code said while it ran: instants under its node or tool call.
    'usage.reported': (e) => instant(e, 'usage', `reported ${costLabel(e.data.usage)}`),
    'attempt.failed': (e) => instant(e, 'attempt', `try ${e.data.attempt} failed`, 'failed'),
    custom: (e) => (e.data.name === undefined ? undefined : instant(e, 'custom', e.data.name)),
    'input.requested': asked,
    'approval.requested': asked,
    'input.answered': answered,
    'approval.resolved': answered,
    // The run's status (the recorder's fold) reads these; they draw nothing of their own.
    'run.started': none,
    'run.awaiting': none,
    'run.resumed': none,
    'run.yielded': none,
    'loop.iteration': none,
    'checkpoint.saved': none,
  };
}

/** From the deepest failed span up to the run. */
function failurePath(view: RunView): Set<string> {
  // Node failures, not a tool error the agent saw as an observation and recovered from.
  const failed = view.spans.filter((s) => s.status === 'failed' && s.kind === 'node');
  const leaf =
    failed.find((s) => !s.children.some((c) => view.byKey.get(c)?.status === 'failed' && view.byKey.get(c)?.kind === 'node')) ?? failed[0];
  const path = new Set<string>();
  for (let span: SpanView | undefined = leaf; span; span = span.parentKey ? view.byKey.get(span.parentKey) : undefined) path.add(span.key);
  return path;
}

const timesCache = new WeakMap<RunView, Map<string, { durationMs: number; selfMs: number }>>();

/**
 * A span's duration, and its own time: the duration minus the union of its children's, so a
 * parent and its children are never counted twice. A span still open ends at `now` when the view
 * is live (the clock the run header ticks with), else at the last event shown (a replay cursor).
 */
export function spanTimes(span: SpanView, view: RunView, now?: number): { durationMs: number; selfMs: number } {
  if (now !== undefined && span.endMs === undefined) return computeSpanTimes(span, view, Math.max(now, view.lastMs ?? span.startMs));
  let cache = timesCache.get(view);
  if (!cache) timesCache.set(view, (cache = new Map()));
  const known = cache.get(span.key);
  if (known) return known;
  const times = computeSpanTimes(span, view);
  cache.set(span.key, times);
  return times;
}

function computeSpanTimes(span: SpanView, view: RunView, openEnd = view.lastMs): { durationMs: number; selfMs: number } {
  const end = span.endMs ?? openEnd ?? span.startMs;
  const durationMs = Math.max(0, end - span.startMs);
  const intervals = span.children
    .map((k) => view.byKey.get(k))
    .filter((c): c is SpanView => c !== undefined)
    .map((c) => [Math.max(c.startMs, span.startMs), Math.min(c.endMs ?? end, end)] as const)
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let covered = 0;
  let reach = -Infinity;
  for (const [a, b] of intervals) {
    const from = Math.max(a, reach);
    if (b > from) covered += b - from;
    reach = Math.max(reach, b);
  }
  return { durationMs, selfMs: Math.max(0, durationMs - covered) };
}
