import { isSpindleError, type ErrorInfo } from '@spindle/contracts';
import { entryNodeId } from '../definition/validate-definition';
import type { GraphDefinition, WorkflowNode } from '../definition/workflow-definition.schema';
import type { RunEnvironment } from './run-environment';
import { runNode, type NodePlacement } from './run-node';
import { applyDelta, type RunState } from './state';
import type { UsageLedger } from './usage-ledger';

export type GraphOutcome = { status: 'completed'; state: RunState } | { status: 'failed'; error: ErrorInfo; state: RunState };

/**
 * Walks the graph from its entry: run a node, fold its delta into state, follow the edge its
 * handle names; the run ends where a node has no edge for its handle.
 */
export async function runGraph(def: GraphDefinition, initial: RunState, where: NodePlacement, env: RunEnvironment, usage: UsageLedger): Promise<GraphOutcome> {
  const nodes = new Map(def.nodes.map((n) => [n.id, n]));
  const edges = new Map(def.edges.map((e) => [`${e.from}\u0000${e.handle ?? 'default'}`, e.to]));
  let state = initial;
  let current: WorkflowNode | undefined = nodes.get(entryNodeId(def));
  let steps = 0;
  while (current) {
    if (env.signal.aborted) return { status: 'failed', error: abortError(env.signal.reason), state };
    if (++steps > env.maxSteps) {
      return { status: 'failed', error: { code: 'max_steps_exceeded', message: `run exceeded ${env.maxSteps} node executions`, nodeId: current.id }, state };
    }
    const result = await runNode(current, state, where, env, usage);
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
