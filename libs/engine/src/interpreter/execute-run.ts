import type { ErrorInfo, Usage } from '@spindle/contracts';
import type { WorkflowDefinition } from '../definition/workflow-definition.schema';
import type { RunEnvironment } from './run-environment';
import { runGraph } from './run-graph';
import type { RunState } from './state';
import { toGraph } from '../patterns/compile-pattern';
import { RunScope } from './run-scope';

export interface RunStart {
  definition: WorkflowDefinition;
  state: RunState;
  /** Subgraph definitions by reference (`name` or `name@version`), from `run.queued`. */
  subgraphs?: ReadonlyMap<string, { version: number; definition: WorkflowDefinition }>;
  attempt: number;
  worker: string;
}

export type RunOutcome =
  | { status: 'completed'; output: RunState; usage: Usage }
  | { status: 'failed'; error: ErrorInfo; usage: Usage }
  | { status: 'canceled'; reason: string; usage: Usage };

/**
 * A run from `run.started` to its terminal event. Throws only when the run was lost to
 * another writer (`run_lost`): then nothing more may be appended.
 */
export async function executeRun(start: RunStart, env: RunEnvironment): Promise<RunOutcome> {
  const began = env.clock.now().getTime();
  const run = { spanId: env.rootSpanId, path: 'root' };
  const graph = toGraph(start.definition);
  const scope = new RunScope(began, env.maxSteps, graph.budget, start.subgraphs);
  const usage = scope.usage;
  await env.log.append({ type: 'run.started', ...run, data: { attempt: start.attempt, worker: start.worker } });

  const outcome = await runGraph(graph, start.state, { containerPath: 'root', parentSpanId: env.rootSpanId }, env, scope);
  const durationMs = env.clock.now().getTime() - began;
  const totals = usage.snapshot();
  if (outcome.status === 'completed') {
    await env.log.append({ type: 'run.completed', ...run, data: { output: { ...outcome.state }, durationMs, usage: totals } });
    return { status: 'completed', output: outcome.state, usage: totals };
  }
  if (outcome.error.code === 'canceled') {
    await env.log.append({ type: 'run.canceled', ...run, data: { reason: outcome.error.message, durationMs } });
    return { status: 'canceled', reason: outcome.error.message, usage: totals };
  }
  await env.log.append({ type: 'run.failed', ...run, data: { error: outcome.error, durationMs, usage: totals } });
  return { status: 'failed', error: outcome.error, usage: totals };
}
