import type { RunView, SpanView } from './run-view';

export interface LaneId {
  id: string;
  label: string;
}

export interface LaneBar {
  key: string;
  label: string;
  startMs: number;
  endMs: number;
  status: SpanView['status'];
}

export interface Lane extends LaneId {
  bars: LaneBar[];
}

/** Control passing from one agent's execution to the next agent's: an edge between two lanes. */
export interface Handoff {
  fromKey: string;
  toKey: string;
  fromLane: string;
  toLane: string;
  /** When the handing agent finished, and when the next one started. */
  fromMs: number;
  toMs: number;
  /** The message the handing agent left, when it left one. */
  note?: string;
}

export interface Swimlanes {
  lanes: Lane[];
  handoffs: Handoff[];
}

/** The swimlane a span is drawn in: a fork branch, or the agent running it. Other spans have none. */
export function laneOf(span: SpanView): LaneId | undefined {
  if (span.kind === 'branch' && span.branchId) return { id: `branch:${span.nodeId}[${span.branchId}]`, label: `branch ${span.branchId}` };
  if (span.kind === 'node' && span.nodeType === 'agent' && span.nodeId)
    return { id: `agent:${span.nodeId}`, label: `agent ${span.nodeId}` };
  return undefined;
}

/**
 * Who an agent passed control to, read from the delta it wrote: a handoff tool writes
 * `next_agent` (and `handoff_note`); a group chat manager's answer names `selection.next`.
 */
export function passedTo(span: SpanView): { agent: string; note?: string } | undefined {
  if (span.kind !== 'node' || span.nodeType !== 'agent' || span.status !== 'completed') return undefined;
  const out = span.output as { next_agent?: unknown; handoff_note?: unknown; selection?: { next?: unknown } } | undefined;
  const agent =
    typeof out?.next_agent === 'string' ? out.next_agent : typeof out?.selection?.next === 'string' ? out.selection.next : undefined;
  if (!agent || agent === span.nodeId) return undefined;
  return { agent, ...(typeof out?.handoff_note === 'string' && out.handoff_note ? { note: out.handoff_note } : {}) };
}

/**
 * The run's top-level nodes on one lane; then one lane per agent and per fork branch, in the order they first ran, each with a bar per
 * execution; and the handoffs between them: from an agent that passed control to the first
 * execution of the named agent that started after it finished. A handoff whose target has not
 * started yet in this slice is not drawn, so the replayed view only shows what had happened.
 */
export function swimlanes(view: RunView): Swimlanes {
  const lanes = new Map<string, Lane>();
  const laneOfKey = new Map<string, string>();
  for (const span of view.spans) {
    const lane = laneOf(span);
    if (!lane) continue;
    const entry = lanes.get(lane.id) ?? { ...lane, bars: [] };
    lanes.set(lane.id, entry);
    laneOfKey.set(span.key, lane.id);
    entry.bars.push({
      key: span.key,
      label: span.label,
      startMs: span.startMs,
      endMs: span.endMs ?? view.lastMs ?? span.startMs,
      status: span.status,
    });
  }
  const agents = view.spans.filter((s) => s.kind === 'node' && s.nodeType === 'agent');
  const handoffs: Handoff[] = [];
  for (const from of agents) {
    const target = passedTo(from);
    const handedAt = from.endSeq;
    if (!target || handedAt === undefined) continue;
    const to = agents.find((s) => s.nodeId === target.agent && s.startSeq > handedAt);
    const [fromLane, toLane] = [laneOfKey.get(from.key), to && laneOfKey.get(to.key)];
    if (!to || !fromLane || !toLane) continue;
    handoffs.push({
      fromKey: from.key,
      toKey: to.key,
      fromLane,
      toLane,
      fromMs: from.endMs ?? from.startMs,
      toMs: to.startMs,
      ...(target.note ? { note: target.note } : {}),
    });
  }
  const top = topLevelLane(view);
  return { lanes: top ? [top, ...lanes.values()] : [...lanes.values()], handoffs };
}

/** The run's own steps: its top-level nodes that are not agents (those have lanes of their own), first. */
function topLevelLane(view: RunView): Lane | undefined {
  const bars = view.spans
    .filter((s) => s.kind === 'node' && s.nodeType !== 'agent' && s.parentKey && view.byKey.get(s.parentKey)?.kind === 'run')
    .map((span) => ({
      key: span.key,
      label: span.nodeId ?? span.label,
      startMs: span.startMs,
      endMs: span.endMs ?? view.lastMs ?? span.startMs,
      status: span.status,
    }));
  return bars.length ? { id: 'top', label: 'top-level nodes', bars } : undefined;
}

/**
 * Round times (1, 2 or 5 × a power of ten ms) for the lanes' time axis, about one per `spacingPx`
 * of `widthPx`, from 0 up to `totalMs`.
 */
export function timeTicks(totalMs: number, widthPx: number, spacingPx = 90): number[] {
  if (totalMs <= 0 || widthPx <= 0) return [0];
  const rough = totalMs / Math.max(1, Math.floor(widthPx / spacingPx));
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= rough) ?? 10 * power;
  const ticks: number[] = [];
  for (let at = 0; at <= totalMs + 1e-9; at += step) ticks.push(Math.round(at * 1000) / 1000);
  return ticks;
}
