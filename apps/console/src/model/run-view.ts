import type { ErrorInfo, RunEvent, Usage } from '@spindle/contracts';

export type NodeState = 'pending' | 'running' | 'completed' | 'failed' | 'waiting';
export type SpanKind = 'run' | 'node' | 'branch' | 'model' | 'tool' | 'request';
export type SpanStatus = 'running' | 'waiting' | 'completed' | 'failed' | 'canceled';

/** One span of the run as its events tell it, paired by `spanId + path`. */
export interface SpanView {
  key: string;
  spanId: string;
  parentKey?: string;
  kind: SpanKind;
  label: string;
  nodeId?: string;
  nodeType?: string;
  path: string;
  status: SpanStatus;
  startSeq: number;
  endSeq?: number;
  startMs: number;
  endMs?: number;
  input?: unknown;
  /** A node's output is the delta it wrote to state, not the whole state. */
  output?: unknown;
  error?: ErrorInfo;
  usage?: Usage;
  model?: string;
  iteration?: number;
  branchId?: string;
  /** 1 for a node's first execution, 2 for the second… */
  execution: number;
  depth: number;
  children: string[];
}

export interface OpenRequest {
  requestId: string;
  kind: 'input' | 'approval';
  nodeId?: string;
  prompt: string;
  seq: number;
}

export interface RunView {
  runId?: string;
  workflow?: { name: string; version: number };
  status: 'queued' | 'running' | 'awaiting_input' | 'awaiting_approval' | 'completed' | 'failed' | 'canceled';
  /** In the order they started. */
  spans: SpanView[];
  byKey: Map<string, SpanView>;
  nodes: Map<string, { state: NodeState; executions: number }>;
  /** `from->to` edges the run went along. */
  traversed: Set<string>;
  requests: OpenRequest[];
  firstMs?: number;
  lastMs?: number;
  /** First to last event of the slice: the run's end-to-end latency so far. */
  latencyMs: number;
  usage: { totalTokens: number; costUsd: number };
  /** Keys of the spans from a failed leaf up to the run: the failure path. */
  failurePath: Set<string>;
  events: number;
}

const spanKey = (spanId: string, path: string) => `${spanId}|${path}`;

/** Event times parsed once per event object: scrubbing re-derives the same events many times. */
const parsedAt = new WeakMap<RunEvent, number>();
function atMs(e: RunEvent): number {
  let ms = parsedAt.get(e);
  if (ms === undefined) {
    ms = Date.parse(e.at);
    parsedAt.set(e, ms);
  }
  return ms;
}
const containerOf = (path: string) => path.slice(0, path.lastIndexOf('/'));

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
    usage: { totalTokens: 0, costUsd: 0 },
    failurePath: new Set(),
    events: end,
  };
  const keyOfSpanId = new Map<string, string>();
  const lastCompletedIn = new Map<string, string>();
  const executions = new Map<string, number>();
  const requests = new Map<string, OpenRequest>();

  const open = (e: RunEvent, kind: SpanKind, fields: Partial<SpanView>): SpanView => {
    const key = spanKey(e.spanId, e.path);
    const parentKey = parentOf(e, kind, view.byKey, keyOfSpanId);
    const parent = parentKey ? view.byKey.get(parentKey) : undefined;
    const span: SpanView = {
      key,
      spanId: e.spanId,
      parentKey,
      kind,
      label: e.nodeId ?? 'run',
      nodeId: e.nodeId,
      path: e.path,
      status: 'running',
      startSeq: e.seq,
      startMs: atMs(e),
      iteration: e.iteration,
      branchId: e.branchId,
      execution: 1,
      depth: parent ? parent.depth + 1 : 0,
      children: [],
      ...fields,
    };
    view.byKey.set(key, span);
    view.spans.push(span);
    parent?.children.push(key);
    if (kind === 'node' || kind === 'run') keyOfSpanId.set(e.spanId, key);
    return span;
  };
  const close = (e: RunEvent, status: SpanStatus, fields: Partial<SpanView> = {}, key = spanKey(e.spanId, e.path)) => {
    const span = view.byKey.get(key);
    if (!span || (span.status !== 'running' && span.status !== 'waiting')) return undefined;
    Object.assign(span, { status, endSeq: e.seq, endMs: atMs(e) }, fields);
    return span;
  };

  for (let i = 0; i < end; i++) {
    const e = all[i];
    view.status = statusAfter(view.status, e);
    const at = atMs(e);
    view.firstMs ??= at;
    view.lastMs = at;
    switch (e.type) {
      case 'run.queued':
        view.runId = e.runId;
        view.workflow = e.data.workflow;
        open(e, 'run', { label: e.data.workflow.name, input: e.data.input });
        break;
      case 'run.completed':
        closeRun(view, e, 'completed', { output: e.data.output });
        break;
      case 'run.failed':
        closeRun(view, e, 'failed', { error: e.data.error });
        break;
      case 'run.canceled':
        closeRun(view, e, 'canceled', {});
        break;
      case 'node.started': {
        const nodeId = e.nodeId ?? '?';
        const n = (executions.get(nodeId) ?? 0) + 1;
        executions.set(nodeId, n);
        open(e, 'node', { nodeType: e.data.nodeType, input: e.data.input, execution: n });
        view.nodes.set(nodeId, { state: 'running', executions: n });
        const previous = lastCompletedIn.get(containerOf(e.path));
        if (previous) view.traversed.add(`${previous}->${nodeId}`);
        break;
      }
      case 'node.completed':
        close(e, 'completed', { output: e.data.output });
        setNode(view, e.nodeId, 'completed');
        if (e.nodeId) lastCompletedIn.set(containerOf(e.path), e.nodeId);
        break;
      case 'node.failed':
        close(e, 'failed', { error: e.data.error });
        setNode(view, e.nodeId, 'failed');
        break;
      case 'branch.started':
        open(e, 'branch', { label: `${e.nodeId}[${e.branchId}]` });
        break;
      case 'branch.completed':
        close(e, (e.data as { status?: string }).status === 'failed' ? 'failed' : 'completed', {
          error: (e.data as { error?: ErrorInfo }).error,
        });
        break;
      case 'model.started':
        open(e, 'model', { label: e.data.model, model: e.data.model, input: e.data.prompt ?? e.data.messages });
        break;
      case 'model.completed':
        close(e, 'completed', {
          output: e.data.toolCalls?.length ? { text: e.data.text, toolCalls: e.data.toolCalls } : e.data.text,
          usage: e.data.usage,
        });
        view.usage.totalTokens += e.data.usage.totalTokens;
        view.usage.costUsd += e.data.usage.costUsd ?? 0;
        break;
      case 'model.failed':
        close(e, 'failed', { error: e.data.error });
        break;
      case 'tool.called':
        open(e, 'tool', { label: e.data.name, nodeType: e.data.name, input: e.data.arguments });
        break;
      case 'tool.returned':
        close(e, e.data.error ? 'failed' : 'completed', e.data.error ? { error: e.data.error } : { output: e.data.result });
        break;
      case 'input.requested':
      case 'approval.requested': {
        const prompt = e.data.prompt;
        const kind = e.type === 'input.requested' ? 'input' : 'approval';
        requests.set(e.data.requestId, { requestId: e.data.requestId, kind, nodeId: e.nodeId, prompt, seq: e.seq });
        const span = view.byKey.get(spanKey(e.spanId, e.path));
        if (span && span.status === 'running') span.status = 'waiting';
        // The question is a span of its own under the node that asked, open until it is answered.
        const asked = { ...e, spanId: e.data.requestId, parentSpanId: e.spanId } as RunEvent;
        open(asked, 'request', {
          label: kind,
          nodeType: kind,
          status: 'waiting',
          input: e.type === 'input.requested' ? { prompt, form: e.data.form } : { prompt, call: e.data.call },
        });
        setNode(view, e.nodeId, 'waiting');
        break;
      }
      case 'input.answered':
      case 'approval.resolved': {
        requests.delete(e.data.requestId);
        const timedOut = e.data.timedOut === true;
        const outcome = e.type === 'input.answered' ? { answer: e.data.answer } : { decision: e.data.decision, message: e.data.message };
        close(
          e,
          timedOut ? 'failed' : 'completed',
          timedOut
            ? { error: { code: 'input_timeout', message: 'nobody answered in time' } }
            : { output: { answeredBy: e.data.answeredBy, ...outcome } },
          spanKey(e.data.requestId, e.path),
        );
        const span = view.byKey.get(spanKey(e.spanId, e.path));
        if (span?.status === 'waiting') span.status = 'running';
        if (e.nodeId && view.nodes.get(e.nodeId)?.state === 'waiting') setNode(view, e.nodeId, 'running');
        break;
      }
      default:
        break;
    }
  }
  view.requests = ['completed', 'failed', 'canceled'].includes(view.status) ? [] : [...requests.values()];
  view.latencyMs = view.firstMs !== undefined && view.lastMs !== undefined ? view.lastMs - view.firstMs : 0;
  view.failurePath = failurePath(view);
  return view;
}

/** The run's status after one more event: the one rule for the live status and the replayed one. */
export function statusAfter(status: RunView['status'], e: RunEvent): RunView['status'] {
  switch (e.type) {
    case 'run.started':
    case 'run.resumed':
      return 'running';
    case 'run.yielded':
      return 'queued';
    case 'run.awaiting':
      return e.data.reason === 'input' ? 'awaiting_input' : 'awaiting_approval';
    case 'run.completed':
    case 'run.failed':
    case 'run.canceled':
      return e.type.slice(4) as RunView['status'];
    default:
      return status;
  }
}

function parentOf(e: RunEvent, kind: SpanKind, byKey: Map<string, SpanView>, keyOfSpanId: Map<string, string>): string | undefined {
  if (kind === 'run') return undefined;
  // A branch is a frame of its fork: the fork's own span (same id) is its parent.
  if (kind === 'branch') return keyOfSpanId.get(e.spanId);
  if (e.parentSpanId === undefined) return undefined;
  // A node inside a fork branch hangs under the branch (the fork's span at the branch's path).
  const branch = spanKey(e.parentSpanId, containerOf(e.path));
  if (kind === 'node' && byKey.has(branch)) return branch;
  return keyOfSpanId.get(e.parentSpanId);
}

function setNode(view: RunView, nodeId: string | undefined, state: NodeState) {
  if (!nodeId) return;
  const current = view.nodes.get(nodeId);
  view.nodes.set(nodeId, { state, executions: current?.executions ?? 1 });
}

/** The run's end closes whatever was still open: as canceled, unless the run completed. */
function closeRun(view: RunView, e: RunEvent, status: SpanStatus, fields: Partial<SpanView>) {
  const endMs = atMs(e);
  for (const span of view.spans) {
    if (span.kind === 'run') Object.assign(span, { status, endSeq: e.seq, endMs }, fields);
    else if (span.status === 'running' || span.status === 'waiting') Object.assign(span, { status: 'canceled', endSeq: e.seq, endMs });
  }
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
