import { humanDuration, nodeDurations, type TimedEvent } from '@spindle/contracts';
import type { NodeState } from './run-view';

/**
 * For each running or waiting node, the label its graph node shows and that ticks with `now`:
 * `started 42 s ago · attempt 2` (the attempt only past the first), from the contracts' wall time, or
 * `waiting 42 s` since the node's oldest request still unanswered (an input or a tool approval) was asked.
 */
export function runningElapsed(
  events: readonly TimedEvent[],
  nodes: ReadonlyMap<string, { state: NodeState; executions: number }>,
  now: number,
): Map<string, string> {
  const labels = new Map<string, string>();
  const asked = openRequests(events);
  for (const [nodeId, node] of nodes) {
    const attempt = node.executions > 1 ? ` · attempt ${node.executions}` : '';
    if (node.state === 'running') {
      const { wallMs } = nodeDurations(events, nodeId, now);
      labels.set(nodeId, `started ${humanDuration(wallMs)} ago${attempt}`);
    }
    const since = asked.get(nodeId);
    if (node.state === 'waiting' && since !== undefined) labels.set(nodeId, `waiting ${humanDuration(Math.max(0, now - since))}${attempt}`);
  }
  return labels;
}

/** When each node's oldest request still unanswered was asked (ms since the epoch), by node id. */
function openRequests(events: readonly TimedEvent[]): Map<string, number> {
  const open = new Map<string, { nodeId: string; at: number }>();
  for (const e of events) {
    const requestId = (e.data as { requestId?: unknown } | undefined)?.requestId;
    if (typeof requestId !== 'string') continue;
    if ((e.type === 'input.requested' || e.type === 'approval.requested') && e.nodeId)
      open.set(requestId, { nodeId: e.nodeId, at: Date.parse(e.at) });
    else if (e.type === 'input.answered' || e.type === 'approval.resolved') open.delete(requestId);
  }
  const oldest = new Map<string, number>();
  for (const { nodeId, at } of open.values()) oldest.set(nodeId, Math.min(at, oldest.get(nodeId) ?? at));
  return oldest;
}
