import { humanDuration, nodeDurations, type TimedEvent } from '@spindle/contracts';
import type { NodeState } from './run-view';

/**
 * For each running node, the label its graph node shows and that ticks with `now`:
 * `started 42 s ago · attempt 2` (the attempt only past the first), from the contracts' wall time.
 */
export function runningElapsed(
  events: readonly TimedEvent[],
  nodes: ReadonlyMap<string, { state: NodeState; executions: number }>,
  now: number,
): Map<string, string> {
  const labels = new Map<string, string>();
  for (const [nodeId, node] of nodes) {
    if (node.state !== 'running') continue;
    const { wallMs } = nodeDurations(events, nodeId, now);
    labels.set(nodeId, `started ${humanDuration(wallMs)} ago${node.executions > 1 ? ` · attempt ${node.executions}` : ''}`);
  }
  return labels;
}
