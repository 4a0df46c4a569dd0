import { isSpindleError, type ErrorInfo } from '@spindle/contracts';
import type { WorkflowNode } from '../definition/workflow-definition.schema';
import { executors } from '../executors/executors';
import type { NodeExecutor } from '../executors/node-executor';
import { toErrorInfo } from './error-info';
import type { RunEnvironment } from './run-environment';
import type { RunState } from './state';
import type { UsageLedger } from './usage-ledger';

export type NodeResult = { ok: true; delta: Record<string, unknown>; handle: string } | { ok: false; error: ErrorInfo };

export interface NodePlacement {
  /** Path of the container the node runs in (`root`, `root/fork_1[a]`). */
  containerPath: string;
  parentSpanId: string;
}

/**
 * The one node wrapper: every node execution, whatever its type, is framed by `node.started`
 * and `node.completed` (with its delta) or `node.failed`. Executors never emit these.
 */
export async function runNode(node: WorkflowNode, state: RunState, where: NodePlacement, env: RunEnvironment, usage: UsageLedger): Promise<NodeResult> {
  const executor = executors[node.type] as NodeExecutor<typeof node.type, unknown>;
  const spanId = env.ids.spanId();
  const span = { nodeId: node.id, spanId, parentSpanId: where.parentSpanId, path: `${where.containerPath}/${node.id}` };
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
  try {
    if (prepareError !== undefined) throw prepareError;
    const outcome = await executor.execute(node as never, input, { env, nodeId: node.id, spanId, path: span.path, startedSeq, state, usage });
    const handle = outcome.handle ?? 'default';
    await env.log.append({
      type: 'node.completed',
      ...span,
      data: { nodeType: node.type, output: outcome.delta, ...(handle !== 'default' ? { handle } : {}), durationMs: elapsed() },
    });
    return { ok: true, delta: outcome.delta, handle };
  } catch (e) {
    // An abort (cancel, run timeout, lost run) wins over whatever error the abort caused.
    const reason = env.signal.aborted && isSpindleError(env.signal.reason) ? env.signal.reason : e;
    if (isSpindleError(reason) && reason.code === 'run_lost') throw reason;
    const error = toErrorInfo(reason, executor.failureCode, () => env.ids.correlationId(), env.reportRedacted);
    await env.log.append({ type: 'node.failed', ...span, data: { nodeType: node.type, error, durationMs: elapsed() } });
    return { ok: false, error: { ...error, nodeId: node.id } };
  }
}
