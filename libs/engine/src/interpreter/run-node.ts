import { isInfrastructureFault, isSpindleError, SpindleError, type ErrorInfo } from '@spindle/contracts';
import type { WorkflowNode } from '../definition/workflow-definition.schema';
import { executors } from '../executors/executors';
import type { NodeExecutor } from '../executors/node-executor';
import type { GraphRunner, NodePlacement } from './graph-runner';
import { toErrorInfo } from './error-info';
import type { RunEnvironment } from './run-environment';
import type { RunState } from './state';
import type { RunScope } from './run-scope';
import { isCheckpointed, lookUpNodeResult } from './node-cache';
import { isPause } from './suspension';
import { participantOf, ParticipantTimeout } from './participant-timeout';

export type NodeResult = { ok: true; delta: Record<string, unknown>; handle: string } | { ok: false; error: ErrorInfo };

/**
 * The one node wrapper: every node execution, whatever its type, is framed by `node.started`
 * and `node.completed` (with its delta) or `node.failed`. Executors never emit these.
 *
 * In a resumed run, an execution the log already finished returns its recorded result and
 * appends nothing; one the log shows started re-enters under its recorded span (its recorded
 * calls are replayed inside it). A `checkpoint: true` node with a stored result for the same
 * input completes with that result instead of running.
 */
export async function runNode(
  node: WorkflowNode,
  state: RunState,
  where: NodePlacement,
  env: RunEnvironment,
  scope: RunScope,
  handles: ReadonlySet<string>,
  runGraph: GraphRunner,
): Promise<NodeResult> {
  const path = `${where.containerPath}/${node.id}`;
  const record = env.history?.node(path, scope.occurrence(path));
  if (record?.outcome) return record.outcome.ok ? record.outcome : { ok: false, error: { ...record.outcome.error, nodeId: node.id } };

  const executor = executors[node.type] as NodeExecutor<typeof node.type, unknown>;
  const spanId = record?.spanId ?? env.ids.spanId();
  const span = {
    nodeId: node.id,
    spanId,
    parentSpanId: where.parentSpanId,
    path,
    ...(where.iteration !== undefined ? { iteration: where.iteration } : {}),
    ...(where.branchId !== undefined ? { branchId: where.branchId } : {}),
  };
  // A re-entered node (resumed after a wait or a lost worker) reports its whole span, from its first start.
  const started = record?.startedAtMs ?? env.clock.now().getTime();
  // Never negative, even when the runner that resumes it has a clock behind the one that started it.
  const elapsed = () => Math.max(0, env.clock.now().getTime() - started);

  let input: unknown;
  let prepareError: unknown;
  try {
    input = executor.prepare(node as never, state);
  } catch (e) {
    prepareError = e;
  }
  const cache = prepareError === undefined && isCheckpointed(node) ? await lookUpNodeResult(node, state, where.iteration, env) : undefined;
  const startedSeq =
    record?.startedSeq ?? (await env.log.append({ type: 'node.started', ...span, data: { nodeType: node.type, input: input ?? null } }));
  if (cache?.stored) {
    const handle = cache.stored.handle ?? 'default';
    await env.log.append({
      type: 'node.completed',
      ...span,
      data: {
        nodeType: node.type,
        output: cache.stored.output,
        ...(handle !== 'default' ? { handle } : {}),
        durationMs: elapsed(),
        cacheKey: cache.key,
        cachedFrom: cache.stored.key,
      },
    });
    return { ok: true, delta: cache.stored.output, handle };
  }
  const deadline = nodeDeadline(node, env);
  try {
    if (prepareError !== undefined) throw prepareError;
    const ctx = {
      env,
      nodeId: node.id,
      spanId,
      path,
      placement: where,
      startedSeq,
      state,
      usage: scope.usage,
      scope,
      signal: deadline.signal,
      replay: record,
      handles,
      runGraph,
    };
    const outcome = await Promise.race([executor.execute(node as never, input, ctx), deadline.hardCut]);
    const handle = outcome.handle ?? 'default';
    await env.log.append({
      type: 'node.completed',
      ...span,
      data: {
        nodeType: node.type,
        output: outcome.delta,
        ...(handle !== 'default' ? { handle } : {}),
        durationMs: elapsed(),
        ...(cache ? { cacheKey: cache.key } : {}),
      },
    });
    return { ok: true, delta: outcome.delta, handle };
  } catch (e) {
    // Waiting for a person, or handed back: the node stays open and a resumed run re-enters it.
    if (isPause(e)) throw e;
    // An abort (cancel, run or node timeout, lost run) wins over whatever error the abort caused.
    const reason = deadline.signal.aborted && isSpindleError(deadline.signal.reason) ? deadline.signal.reason : e;
    // The log's failure, not the node's: nothing is recorded, the runner stops or hands the run back.
    if (isInfrastructureFault(reason) || isInfrastructureFault(e)) throw isInfrastructureFault(reason) ? reason : e;
    const error = toErrorInfo(reason, executor.failureCode, () => env.ids.correlationId(), env.reportRedacted);
    await env.log.append({ type: 'node.failed', ...span, data: { nodeType: node.type, error, durationMs: elapsed() } });
    return { ok: false, error: { ...error, nodeId: participantOf(reason) ?? node.id } };
  } finally {
    deadline.clear();
  }
}

/**
 * The node's signal: the run's, plus the node's own `timeout_ms` when it has one. At the timeout
 * the signal aborts (cooperative); a node still running after the grace period is cut off (its
 * promise is abandoned, its result ignored).
 */
function nodeDeadline(node: WorkflowNode, env: RunEnvironment) {
  // A human node's `timeout_ms` is how long its request stays open, not a deadline for running.
  if (node.type === 'human' || !node.timeout_ms)
    return { signal: env.signal, hardCut: new Promise<never>(() => undefined), clear: () => undefined };
  const controller = new AbortController();
  const timeout = timeoutError(node, node.timeout_ms);
  const soft = setTimeout(() => controller.abort(timeout), node.timeout_ms);
  let hard: ReturnType<typeof setTimeout> | undefined;
  const hardCut = new Promise<never>((_, reject) => {
    hard = setTimeout(() => reject(timeout), node.timeout_ms! + (env.timeoutGraceMs ?? 1_000));
  });
  hardCut.catch(() => undefined);
  return {
    signal: AbortSignal.any([env.signal, controller.signal]),
    hardCut,
    clear: () => {
      clearTimeout(soft);
      clearTimeout(hard);
    },
  };
}

/** A graph node's timeout, or a pattern participant's wait limit (which names the participant). */
function timeoutError(node: WorkflowNode, ms: number): SpindleError {
  if (node.type !== 'agent' || node.participant === undefined)
    return new SpindleError('node_timeout', `node "${node.id}" exceeded its timeout of ${ms} ms`);
  const which = node.participant === node.id ? `"${node.id}"` : `"${node.participant}" (node "${node.id}")`;
  return new ParticipantTimeout(node.id, `participant ${which} exceeded its wait limit of ${ms} ms`);
}
