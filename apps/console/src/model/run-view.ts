import { addCallUsage, EMPTY_USAGE, type Actor, type RunEvent, type RunEventHandlers } from '@spindle/contracts';
import { actorLabel } from './actor-label';
import { atMs } from './run-view/event-time';
import { NodeStates } from './run-view/node-states';
import type { OpenRequest, RunStatusView, RunView, SpanView } from './run-view/run-view.types';
import { spanKey, SpanTree } from './run-view/span-tree';

export type { NodeState, OpenRequest, RunView, SpanKind, SpanStatus, SpanView } from './run-view/run-view.types';

/**
 * The run as of its first `cursor` events. Pure and deterministic: live view and replay both
 * derive from a prefix of the same recorded array, so graph, timeline and details agree.
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
  for (let i = 0; i < end; i++) {
    const e = all[i];
    view.status = statusAfter(view.status, e);
    const at = atMs(e);
    view.firstMs ??= at;
    view.lastMs = at;
    (on[e.type] as (event: RunEvent) => void)(e);
  }
  view.requests = ['completed', 'failed', 'canceled'].includes(view.status) ? [] : [...requests.values()];
  view.latencyMs = view.firstMs !== undefined && view.lastMs !== undefined ? view.lastMs - view.firstMs : 0;
  view.failurePath = failurePath(view);
  return view;
}

/** What each event type does to the view: the span tree, node states, open requests, usage. */
function viewFolds(view: RunView, spans: SpanTree, nodes: NodeStates, requests: Map<string, OpenRequest>): RunEventHandlers {
  const none = () => undefined;
  const asked = (e: Extract<RunEvent, { type: 'input.requested' | 'approval.requested' }>) => {
    const { prompt } = e.data;
    const kind = e.type === 'input.requested' ? 'input' : 'approval';
    requests.set(e.data.requestId, { requestId: e.data.requestId, kind, nodeId: e.nodeId, prompt, seq: e.seq });
    const span = spans.nodeSpanOf(e);
    if (span && span.status === 'running') span.status = 'waiting';
    // The question is a span of its own under the node that asked, open until it is answered.
    spans.open({ ...e, spanId: e.data.requestId, parentSpanId: e.spanId } as RunEvent, 'request', {
      label: kind,
      nodeType: kind,
      status: 'waiting',
      input: e.type === 'input.requested' ? { prompt, form: e.data.form } : { prompt, call: e.data.call },
    });
    nodes.set(e.nodeId, 'waiting');
  };
  const answered = (e: Extract<RunEvent, { type: 'input.answered' | 'approval.resolved' }>) => {
    requests.delete(e.data.requestId);
    const outcome = e.type === 'input.answered' ? { answer: e.data.answer } : { decision: e.data.decision, message: e.data.message };
    spans.close(
      e,
      e.data.timedOut ? 'failed' : 'completed',
      e.data.timedOut
        ? { error: { code: 'input_timeout', message: 'nobody answered in time' } }
        : // Logs written before identity hold a string here.
          { output: { answeredBy: actorLabel(e.data.answeredBy as Actor | string), ...outcome } },
      spanKey(e.data.requestId, e.path),
    );
    const span = spans.nodeSpanOf(e);
    if (span?.status === 'waiting') span.status = 'running';
    nodes.resumed(e.nodeId);
  };
  return {
    'run.queued': (e) => {
      view.runId = e.runId;
      view.workflow = e.data.workflow;
      spans.open(e, 'run', { label: e.data.workflow.name, input: e.data.input });
    },
    'run.completed': (e) => spans.closeRun(e, 'completed', { output: e.data.output }),
    'run.failed': (e) => spans.closeRun(e, 'failed', { error: e.data.error }),
    'run.canceled': (e) => {
      spans.closeRun(e, 'canceled', {});
      nodes.canceled();
    },
    'node.started': (e) => {
      const execution = nodes.started(e);
      spans.open(e, 'node', { nodeType: e.data.nodeType, input: e.data.input, execution });
    },
    'node.completed': (e) => {
      spans.close(e, 'completed', { output: e.data.output });
      nodes.completed(e);
    },
    'node.failed': (e) => {
      spans.close(e, 'failed', { error: e.data.error });
      nodes.set(e.nodeId, 'failed');
    },
    'branch.started': (e) => void spans.open(e, 'branch', { label: `${e.nodeId}[${e.data.branchId}]` }),
    'branch.completed': (e) => void spans.close(e, e.data.status, { error: e.data.error }),
    'model.started': (e) =>
      void spans.open(e, 'model', { label: e.data.model, model: e.data.model, input: e.data.prompt ?? e.data.messages }),
    'model.completed': (e) => {
      spans.close(e, 'completed', {
        output:
          e.data.toolCalls?.length || e.data.reasoning !== undefined
            ? {
                text: e.data.text,
                ...(e.data.reasoning !== undefined && { reasoning: e.data.reasoning }),
                toolCalls: e.data.toolCalls ?? [],
              }
            : e.data.text,
        usage: e.data.usage,
      });
      view.usage = addCallUsage(view.usage, e.data.usage);
    },
    'model.failed': (e) => void spans.close(e, 'failed', { error: e.data.error }),
    'tool.called': (e) => void spans.open(e, 'tool', { label: e.data.name, nodeType: e.data.name, input: e.data.arguments }),
    'tool.returned': (e) =>
      void spans.close(e, e.data.error ? 'failed' : 'completed', e.data.error ? { error: e.data.error } : { output: e.data.result }),
    'input.requested': asked,
    'approval.requested': asked,
    'input.answered': answered,
    'approval.resolved': answered,
    // The status rule (statusAfter) reads these; they draw nothing of their own.
    'run.started': none,
    'run.awaiting': none,
    'run.resumed': none,
    'run.yielded': none,
    'loop.iteration': none,
    'checkpoint.saved': none,
    'context.truncated': none,
    custom: none,
  };
}

/** How each event type moves the run's status: the one rule for the live status and the replayed one. */
const statusRules: { [T in RunEvent['type']]: (e: Extract<RunEvent, { type: T }>, status: RunStatusView) => RunStatusView } = {
  'run.queued': (_e, s) => s,
  'run.started': () => 'running',
  'run.resumed': () => 'running',
  'run.yielded': () => 'queued',
  'run.awaiting': (e) => (e.data.reason === 'input' ? 'awaiting_input' : 'awaiting_approval'),
  'run.completed': () => 'completed',
  'run.failed': () => 'failed',
  'run.canceled': () => 'canceled',
  'node.started': (_e, s) => s,
  'node.completed': (_e, s) => s,
  'node.failed': (_e, s) => s,
  'model.started': (_e, s) => s,
  'model.completed': (_e, s) => s,
  'model.failed': (_e, s) => s,
  'tool.called': (_e, s) => s,
  'tool.returned': (_e, s) => s,
  'loop.iteration': (_e, s) => s,
  'branch.started': (_e, s) => s,
  'branch.completed': (_e, s) => s,
  'input.requested': (_e, s) => s,
  'input.answered': (_e, s) => s,
  'approval.requested': (_e, s) => s,
  'approval.resolved': (_e, s) => s,
  'checkpoint.saved': (_e, s) => s,
  'context.truncated': (_e, s) => s,
  custom: (_e, s) => s,
};

/** The run's status after one more event. */
export function statusAfter(status: RunView['status'], e: RunEvent): RunView['status'] {
  return (statusRules[e.type] as (event: RunEvent, s: RunStatusView) => RunStatusView)(e, status);
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
 * parent and its children are never counted twice.
 */
export function spanTimes(span: SpanView, view: RunView): { durationMs: number; selfMs: number } {
  let cache = timesCache.get(view);
  if (!cache) timesCache.set(view, (cache = new Map()));
  const known = cache.get(span.key);
  if (known) return known;
  const times = computeSpanTimes(span, view);
  cache.set(span.key, times);
  return times;
}

function computeSpanTimes(span: SpanView, view: RunView): { durationMs: number; selfMs: number } {
  const end = span.endMs ?? view.lastMs ?? span.startMs;
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
