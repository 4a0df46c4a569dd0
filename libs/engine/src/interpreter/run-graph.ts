import { isSpindleError, type ErrorInfo } from '@spindle/contracts';
import type { NodeContainer, WorkflowNode } from '../definition/workflow-definition.schema';
import type { RunEnvironment } from './run-environment';
import { runNode, type NodePlacement } from './run-node';
import type { RunScope } from './run-scope';
import { applyDelta, type RunState } from './state';

export type GraphOutcome = { status: 'completed'; state: RunState } | { status: 'failed'; error: ErrorInfo; state: RunState };

/**
 * Walks a graph (the definition, a loop body, a fork branch) from its entry: run a node, fold
 * its delta into state, follow the edge its handle names; the walk ends where a node has no
 * edge for its handle.
 */
export async function runGraph(graph: NodeContainer, initial: RunState, where: NodePlacement, env: RunEnvironment, scope: RunScope): Promise<GraphOutcome> {
  const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
  const edges = new Map(graph.edges.map((e) => [`${e.from}\u0000${e.handle ?? 'default'}`, e.to]));
  let state = initial;
  let current: WorkflowNode | undefined = nodes.get(graph.entry ?? graph.nodes[0].id);
  while (current) {
    if (env.signal.aborted) return { status: 'failed', error: abortError(env.signal.reason), state };
    const overBudget = scope.budgetBreach(env.clock.now().getTime());
    if (overBudget) return { status: 'failed', error: { code: 'run_budget_exceeded', message: overBudget, nodeId: current.id }, state };
    if (!scope.takeStep()) {
      return { status: 'failed', error: { code: 'max_steps_exceeded', message: `run exceeded ${scope.maxSteps} node executions`, nodeId: current.id }, state };
    }
    const result = await runNode(current, state, where, env, scope);
    if (!result.ok) return { status: 'failed', error: result.error, state };
    state = applyDelta(state, result.delta);
    const next = edges.get(`${current.id}\u0000${result.handle}`);
    current = next === undefined ? undefined : nodes.get(next);
  }
  return { status: 'completed', state };
}

function abortError(reason: unknown): ErrorInfo {
  if (!isSpindleError(reason)) return { code: 'canceled', message: 'run aborted' };
  if (reason.code === 'run_lost') throw reason;
  return { code: reason.code, message: reason.message };
}
