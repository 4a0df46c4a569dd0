import { isSpindleError, type ErrorInfo } from '@spindle/contracts';
import { entryNodeId } from '../definition/validate-definition';
import type { Budget, GraphDefinition, WorkflowNode } from '../definition/workflow-definition.schema';
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
  const startedAt = env.clock.now().getTime();
  while (current) {
    if (env.signal.aborted) return { status: 'failed', error: abortError(env.signal.reason), state };
    const overBudget = budgetBreach(def.budget, usage, env.clock.now().getTime() - startedAt);
    if (overBudget) return { status: 'failed', error: { code: 'run_budget_exceeded', message: overBudget, nodeId: current.id }, state };
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

/** Why the run may not start another node, or undefined while it is within its budget. */
function budgetBreach(budget: Budget | undefined, usage: UsageLedger, elapsedMs: number): string | undefined {
  if (!budget) return undefined;
  const spent = usage.snapshot();
  if (budget.maxTotalTokens !== undefined && spent.totalTokens >= budget.maxTotalTokens) return `the run used ${spent.totalTokens} tokens of its ${budget.maxTotalTokens}`;
  if (budget.maxTotalCost !== undefined && (spent.costUsd ?? 0) >= budget.maxTotalCost) return `the run spent $${spent.costUsd} of its $${budget.maxTotalCost}`;
  if (budget.maxDuration !== undefined && elapsedMs >= budget.maxDuration) return `the run has taken ${elapsedMs} ms of its ${budget.maxDuration} ms`;
  return undefined;
}

function abortError(reason: unknown): ErrorInfo {
  if (!isSpindleError(reason)) return { code: 'canceled', message: 'run aborted' };
  if (reason.code === 'run_lost') throw reason;
  return { code: reason.code, message: reason.message };
}
