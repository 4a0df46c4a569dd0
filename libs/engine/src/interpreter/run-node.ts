import { isSpindleError, SpindleError, type ErrorInfo } from '@spindle/contracts';
import type { WorkflowNode } from '../definition/workflow-definition.schema';
import { executors } from '../executors/executors';
import type { NodeExecutor } from '../executors/node-executor';
import { toErrorInfo } from './error-info';
import type { RunEnvironment } from './run-environment';
import type { RunState } from './state';
import type { RunScope } from './run-scope';

export type NodeResult = { ok: true; delta: Record<string, unknown>; handle: string } | { ok: false; error: ErrorInfo };

export interface NodePlacement {
  /** Path of the container the node runs in (`root`, `root/fork_1[a]`, `root/retry[2]`). */
  containerPath: string;
  parentSpanId: string;
  /** The enclosing loop's iteration, carried by every event inside it. */
  iteration?: number;
  /** The enclosing fork branch, carried by every event inside it. */
  branchId?: string;
}

/**
 * The one node wrapper: every node execution, whatever its type, is framed by `node.started`
 * and `node.completed` (with its delta) or `node.failed`. Executors never emit these.
 */
export async function runNode(node: WorkflowNode, state: RunState, where: NodePlacement, env: RunEnvironment, scope: RunScope): Promise<NodeResult> {
  const executor = executors[node.type] as NodeExecutor<typeof node.type, unknown>;
  const spanId = env.ids.spanId();
  const span = {
    nodeId: node.id,
    spanId,
    parentSpanId: where.parentSpanId,
    path: `${where.containerPath}/${node.id}`,
    ...(where.iteration !== undefined ? { iteration: where.iteration } : {}),
    ...(where.branchId !== undefined ? { branchId: where.branchId } : {}),
  };
  const started = env.clock.now().getTime();
  const elapsed = () => env.clock.now().getTime() - started;

  let input: unknown;
  let prepareError: unknown;
  try {
    input = executor.prepare(node as never, state);
  } catch (e) {
    prepareError = e;
  }
  const startedSeq = await env.log.append({ type: 'node.started', ...span, data: { nodeType: node.type, input: input ?? null } });
  const deadline = nodeDeadline(node, env);
  try {
    if (prepareError !== undefined) throw prepareError;
    const running = executor.execute(node as never, input, { env, nodeId: node.id, spanId, path: span.path, placement: where, startedSeq, state, usage: scope.usage, scope, signal: deadline.signal });
    const outcome = await Promise.race([running, deadline.hardCut]);
    const handle = outcome.handle ?? 'default';
    await env.log.append({
      type: 'node.completed',
      ...span,
      data: { nodeType: node.type, output: outcome.delta, ...(handle !== 'default' ? { handle } : {}), durationMs: elapsed() },
    });
    return { ok: true, delta: outcome.delta, handle };
  } catch (e) {
    // An abort (cancel, run or node timeout, lost run) wins over whatever error the abort caused.
    const reason = deadline.signal.aborted && isSpindleError(deadline.signal.reason) ? deadline.signal.reason : e;
    if (isSpindleError(reason) && reason.code === 'run_lost') throw reason;
    const error = toErrorInfo(reason, executor.failureCode, () => env.ids.correlationId(), env.reportRedacted);
    await env.log.append({ type: 'node.failed', ...span, data: { nodeType: node.type, error, durationMs: elapsed() } });
    return { ok: false, error: { ...error, nodeId: node.id } };
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
  if (!node.timeout_ms) return { signal: env.signal, hardCut: new Promise<never>(() => undefined), clear: () => undefined };
  const controller = new AbortController();
  const timeout = new SpindleError('node_timeout', `node "${node.id}" exceeded its timeout of ${node.timeout_ms} ms`);
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
