import type { RunEvent } from '@spindle/contracts';
import { atMs, containerOf } from './event-time';
import type { RunView, SpanKind, SpanStatus, SpanView } from './run-view.types';

export const spanKey = (spanId: string, path: string) => `${spanId}|${path}`;

/** The spans of the run as a tree: opened by their first event, closed by their last. */
export class SpanTree {
  private readonly keyOfSpanId = new Map<string, string>();

  constructor(private readonly view: RunView) {}

  open(e: RunEvent, kind: SpanKind, fields: Partial<SpanView>): SpanView {
    const key = spanKey(e.spanId, e.path);
    const parentKey = this.parentOf(e, kind);
    const parent = parentKey ? this.view.byKey.get(parentKey) : undefined;
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
    this.view.byKey.set(key, span);
    this.view.spans.push(span);
    parent?.children.push(key);
    // What user code says hangs under a tool call's span too.
    if (kind === 'node' || kind === 'run' || kind === 'tool') this.keyOfSpanId.set(e.spanId, key);
    return span;
  }

  close(e: RunEvent, status: SpanStatus, fields: Partial<SpanView> = {}, key = spanKey(e.spanId, e.path)): SpanView | undefined {
    const span = this.view.byKey.get(key);
    if (!span || (span.status !== 'running' && span.status !== 'waiting')) return undefined;
    Object.assign(span, { status, endSeq: e.seq, endMs: atMs(e) }, fields);
    return span;
  }

  /** The span of the node an event belongs to (same id and path). */
  nodeSpanOf(e: RunEvent): SpanView | undefined {
    return this.view.byKey.get(spanKey(e.spanId, e.path));
  }

  /** The run's end closes whatever was still open: as canceled, unless the run completed. */
  closeRun(e: RunEvent, status: SpanStatus, fields: Partial<SpanView> = {}) {
    const endMs = atMs(e);
    for (const span of this.view.spans) {
      if (span.kind === 'run') Object.assign(span, { status, endSeq: e.seq, endMs }, fields);
      else if (span.status === 'running' || span.status === 'waiting') Object.assign(span, { status: 'canceled', endSeq: e.seq, endMs });
    }
  }

  private parentOf(e: RunEvent, kind: SpanKind): string | undefined {
    if (kind === 'run') return undefined;
    // A branch is a frame of its fork: the fork's own span (same id) is its parent.
    if (kind === 'branch') return this.keyOfSpanId.get(e.spanId);
    if (e.parentSpanId === undefined) return undefined;
    // A node inside a fork branch hangs under the branch (the fork's span at the branch's path).
    const branch = spanKey(e.parentSpanId, containerOf(e.path));
    if (kind === 'node' && this.view.byKey.has(branch)) return branch;
    return this.keyOfSpanId.get(e.parentSpanId);
  }
}
