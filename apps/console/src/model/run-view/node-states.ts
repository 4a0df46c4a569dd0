import type { RunEvent } from '@spindle/contracts';
import { containerOf } from './event-time';
import type { NodeState, RunView } from './run-view.types';

/** Each node's state on the graph, how often it ran, and the edges the run went along. */
export class NodeStates {
  private readonly executions = new Map<string, number>();
  private readonly lastCompletedIn = new Map<string, string>();

  constructor(private readonly view: RunView) {}

  /** Marks the node running; answers which execution of it this is. */
  started(e: RunEvent): number {
    const nodeId = e.nodeId ?? '?';
    const n = (this.executions.get(nodeId) ?? 0) + 1;
    this.executions.set(nodeId, n);
    this.view.nodes.set(nodeId, { state: 'running', executions: n });
    const previous = this.lastCompletedIn.get(containerOf(e.path));
    if (previous) this.view.traversed.add(`${previous}->${nodeId}`);
    return n;
  }

  completed(e: RunEvent) {
    this.set(e.nodeId, 'completed');
    if (e.nodeId) this.lastCompletedIn.set(containerOf(e.path), e.nodeId);
  }

  set(nodeId: string | undefined, state: NodeState) {
    if (!nodeId) return;
    const current = this.view.nodes.get(nodeId);
    this.view.nodes.set(nodeId, { state, executions: current?.executions ?? 1 });
  }

  /** A canceled run stops its nodes where they were: drawn as canceled, not as failed or still going. */
  canceled() {
    for (const [nodeId, node] of this.view.nodes) if (node.state === 'running' || node.state === 'waiting') this.set(nodeId, 'canceled');
  }

  /** A node that waited for a person goes on. */
  resumed(nodeId: string | undefined) {
    if (nodeId && this.view.nodes.get(nodeId)?.state === 'waiting') this.set(nodeId, 'running');
  }
}
