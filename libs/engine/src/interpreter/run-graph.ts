import { isInfrastructureFault, isSpindleError, type ErrorInfo } from '@spindle/contracts';
import type { NodeContainer, WorkflowNode } from '../definition/workflow-definition.schema';
import type { GraphOutcome, NodePlacement } from './graph-runner';
import type { RunEnvironment } from './run-environment';
import { runNode } from './run-node';
import type { RunScope } from './run-scope';
import { applyDelta, type RunState } from './state';
import { RunYielded } from './suspension';

export interface WalkOptions {
  /** Where the walk begins instead of the graph's entry (a fork of a run starts at its checkpoint's frontier); `null`: nowhere. */
  start?: string | null;
  /**
   * Called at each super-step boundary of the top-level graph, after a node's delta is folded
   * in, with the node to run next: the run saves its checkpoint there.
   */
  atBoundary?: (state: RunState, next: string | undefined) => Promise<void>;
}

/**
 * Walks a graph (the definition, a loop body, a fork branch) from its entry: run a node, fold
 * its delta into state, follow the edge its handle names; the walk ends where a node has no
 * edge for its handle. A top-level walk checkpoints between nodes and, when its runner is
 * draining, stops there and hands the run back.
 */
export async function runGraph(
  graph: NodeContainer,
  initial: RunState,
  where: NodePlacement,
  env: RunEnvironment,
  scope: RunScope,
  opts: WalkOptions = {},
): Promise<GraphOutcome> {
  const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
  const edges = new Map(graph.edges.map((e) => [`${e.from}\u0000${e.handle ?? 'default'}`, e.to]));
  const wired = handlesByNode(graph);
  let state = initial;
  const first = opts.start === undefined ? (graph.entry ?? graph.nodes[0].id) : opts.start;
  let current: WorkflowNode | undefined = first === null ? undefined : nodes.get(first);
  while (current) {
    if (env.signal.aborted) return { status: 'failed', error: abortError(env.signal.reason), state };
    const overBudget = scope.budgetBreach(env.clock.now().getTime());
    if (overBudget) return { status: 'failed', error: { code: 'run_budget_exceeded', message: overBudget, nodeId: current.id }, state };
    if (!scope.takeStep()) {
      return {
        status: 'failed',
        error: { code: 'max_steps_exceeded', message: `run exceeded ${scope.maxSteps} node executions`, nodeId: current.id },
        state,
      };
    }
    const result = await runNode(current, state, where, env, scope, wired.get(current.id) ?? new Set(), nested);
    if (!result.ok) return { status: 'failed', error: result.error, state };
    state = applyDelta(state, result.delta);
    const next = edges.get(`${current.id}\u0000${result.handle}`);
    current = next === undefined ? undefined : nodes.get(next);
    if (opts.atBoundary) {
      await opts.atBoundary(state, current?.id);
      if (current && env.drain?.aborted) throw new RunYielded('runner shutting down');
    }
  }
  return { status: 'completed', state };
}

function handlesByNode(graph: NodeContainer): Map<string, Set<string>> {
  const handles = new Map<string, Set<string>>();
  for (const e of graph.edges) {
    const set = handles.get(e.from) ?? new Set<string>();
    set.add(e.handle ?? 'default');
    handles.set(e.from, set);
  }
  return handles;
}

function abortError(reason: unknown): ErrorInfo {
  if (!isSpindleError(reason)) return { code: 'canceled', message: 'run aborted' };
  if (isInfrastructureFault(reason)) throw reason;
  return { code: reason.code, message: reason.message };
}

/** What a node that contains graphs walks them with: the same walk, without checkpoints. */
const nested = (graph: NodeContainer, initial: RunState, where: NodePlacement, env: RunEnvironment, scope: RunScope) =>
  runGraph(graph, initial, where, env, scope);
