import { isSpindleError, RunCanceledError, type ErrorInfo, type RunEventDraft, type Usage } from '@spindle/contracts';
import { graphStructureHash } from '../definition/graph-structure';
import type { WorkflowDefinition } from '../definition/workflow-definition.schema';
import { toGraph } from '../patterns/compile-pattern';
import type { RunEnvironment } from './run-environment';
import type { GraphOutcome } from './graph-runner';
import { runGraph } from './run-graph';
import { RunScope } from './run-scope';
import { changedKeys, type RunState } from './state';
import { RunSuspended, RunYielded } from './suspension';

export interface RunStart {
  definition: WorkflowDefinition;
  state: RunState;
  /** Subgraph definitions by reference (`name` or `name@version`), from `run.queued`. */
  subgraphs?: ReadonlyMap<string, { version: number; definition: WorkflowDefinition }>;
  attempt: number;
  worker: string;
  /** A fork starts at its checkpoint's frontier (`[]`: nothing left to run). */
  start?: readonly string[];
  /** Set when the run continues a log that already has steps (`env.history` holds them). */
  resume?: { reason: 'answered' | 'worker_lost' | 'handed_back'; definitionVersion?: number };
}

export type RunOutcome =
  | { status: 'completed'; output: RunState; usage: Usage }
  | { status: 'failed'; error: ErrorInfo; usage: Usage }
  | { status: 'canceled'; reason: string; usage: Usage }
  /** Waiting for a person: the runner holds nothing until an answer resumes it. */
  | { status: 'awaiting'; requestIds: string[]; usage: Usage }
  /** Handed back at a checkpoint because the runner is shutting down. */
  | { status: 'yielded'; usage: Usage };

/**
 * A run from `run.started` (or `run.resumed`) to its terminal event, or to the point where it
 * waits for a person or is handed back. Throws only when the run was lost to another writer
 * (`run_lost`) or the log could not be written (`bus_unavailable`): then nothing more may be
 * appended. Resolves only once its last event is stored: an outcome is never reported ahead of
 * the log.
 */
export async function executeRun(start: RunStart, env: RunEnvironment): Promise<RunOutcome> {
  const began = env.clock.now().getTime() - (env.history?.activeMs ?? 0);
  const run = { spanId: env.rootSpanId, path: 'root' };
  const graph = toGraph(start.definition);
  const scope = new RunScope(began, env.maxSteps, graph.budget, start.subgraphs, env.history?.usage);
  const usage = scope.usage;
  const begin = () =>
    env.log.append(
      start.resume
        ? {
            type: 'run.resumed',
            ...run,
            data: {
              reason: start.resume.reason,
              attempt: start.attempt,
              worker: start.worker,
              ...(start.resume.definitionVersion ? { definitionVersion: start.resume.definitionVersion } : {}),
            },
          }
        : { type: 'run.started', ...run, data: { attempt: start.attempt, worker: start.worker } },
    );

  const graphHash = graphStructureHash(start.definition);
  let step = 0;
  // State is immutable and a delta replaces whole top-level values: an unchanged key keeps its value's identity.
  let savedState: RunState = start.state;
  const atBoundary = async (state: RunState, next: string | undefined) => {
    const checkpointId = `cp-${++step}`;
    const changes = changedKeys(savedState, state);
    savedState = state;
    if (env.history?.checkpoints.has(checkpointId)) return;
    await env.log.append({
      type: 'checkpoint.saved',
      ...run,
      data: { checkpointId, step, changes, frontier: next ? [next] : [], graphHash },
    } as RunEventDraft);
  };
  let outcome: GraphOutcome;
  try {
    await begin();
    const where = { containerPath: 'root', parentSpanId: env.rootSpanId };
    outcome = await runGraph(graph, start.state, where, env, scope, {
      atBoundary,
      ...(start.start ? { start: start.start[0] ?? null } : {}),
    });
  } catch (e) {
    if (e instanceof RunSuspended) {
      await env.log.append({ type: 'run.awaiting', ...run, data: { reason: e.reason, requestIds: e.requestIds } });
      await env.log.durable();
      return { status: 'awaiting', requestIds: e.requestIds, usage: usage.snapshot() };
    }
    if (e instanceof RunYielded) {
      await env.log.append({ type: 'run.yielded', ...run, data: { reason: e.reason, worker: start.worker } });
      await env.log.durable();
      return { status: 'yielded', usage: usage.snapshot() };
    }
    if (!isLogFull(e)) throw e;
    outcome = { status: 'failed', error: { code: e.code, message: e.message }, state: start.state };
  }
  const durationMs = env.clock.now().getTime() - began;
  const totals = usage.snapshot();
  if (outcome.status === 'completed') {
    try {
      await env.log.append({ type: 'run.completed', ...run, data: { output: { ...outcome.state }, durationMs, usage: totals } });
      await env.log.durable();
      return { status: 'completed', output: outcome.state, usage: totals };
    } catch (e) {
      // The final state does not fit the log: the run fails, recorded in an event that always fits.
      if (!isLogFull(e)) throw e;
      outcome = { status: 'failed', error: { code: e.code, message: e.message }, state: outcome.state };
    }
  }
  if (outcome.error.code === 'canceled') {
    const canceledBy = env.signal.reason instanceof RunCanceledError ? env.signal.reason.canceledBy : undefined;
    await env.log.append({
      type: 'run.canceled',
      ...run,
      data: { reason: outcome.error.message, durationMs, ...(canceledBy && { canceledBy }) },
    });
    await env.log.durable();
    return { status: 'canceled', reason: outcome.error.message, usage: totals };
  }
  await env.log.append({ type: 'run.failed', ...run, data: { error: outcome.error, durationMs, usage: totals } });
  await env.log.durable();
  return { status: 'failed', error: outcome.error, usage: totals };
}

function isLogFull(e: unknown): e is { code: 'run_log_limit_exceeded'; message: string } {
  return isSpindleError(e) && e.code === 'run_log_limit_exceeded';
}
