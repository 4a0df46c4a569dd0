import { isInfrastructureFault, SpindleError, type ErrorInfo } from '@spindle/contracts';
import type { NodeContainer } from '../definition/workflow-definition.schema';
import { RunSuspended } from '../interpreter/suspension';
import { changedKeys } from '../interpreter/state';
import { failureOf } from './graph-outcome';
import type { NodeContext, NodeExecutor } from './node-executor';
import { placed } from './node-executor';

type BranchResult = { branchId: string; ok: true; result: unknown } | { branchId: string; ok: false; error: ErrorInfo };

/**
 * Runs every branch concurrently, each on the state as it was at the fork (state is immutable,
 * so each branch's writes stay its own), framed by `branch.started` / `branch.completed`. The
 * join writes `{ branchId: result }`; a failed branch fails the fork unless `continue_on_error`,
 * in which case its entry is `{ error }`. Without it, the first failure stops the other branches
 * at once (their in-flight calls are aborted), since their results could not be used.
 *
 * A branch that waits for a person does not stop the others: they run to their ends, and the
 * fork then waits. When the run resumes, finished branches replay their recorded results, the
 * waiting one continues, and branches that had not started start.
 */
export const forkExecutor: NodeExecutor<'fork', { branches: string[] }> = {
  failureCode: 'node_failed',
  prepare: (node) => ({ branches: Object.keys(node.branches) }),
  async execute(node, _input, ctx) {
    const siblings = new AbortController();
    const branchCtx = {
      ...ctx,
      signal: AbortSignal.any([ctx.signal, siblings.signal]),
      env: { ...ctx.env, signal: AbortSignal.any([ctx.env.signal, siblings.signal]) },
    };
    const settled = await Promise.allSettled(
      Object.entries(node.branches).map(async ([branchId, graph]) => {
        const result = await runBranch(branchCtx, node.id, branchId, graph, node.result_key);
        if (!result.ok && !node.continue_on_error && !siblings.signal.aborted)
          siblings.abort(new SpindleError('canceled', `stopped: branch ${branchId} failed`));
        return result;
      }),
    );
    const thrown = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
    const lost = thrown.find(isInfrastructureFault);
    if (lost) throw lost;
    const unexpected = thrown.find((e) => !(e instanceof RunSuspended));
    if (unexpected) throw unexpected;
    const results = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    // The first failure is the cause; the others were stopped because of it.
    const failed = results.find((r): r is Extract<BranchResult, { ok: false }> => !r.ok && !r.error.message.startsWith('stopped: branch '));
    if (failed && !node.continue_on_error)
      throw failureOf({ ...failed.error, message: `branch ${failed.branchId}: ${failed.error.message}` });
    if (thrown.length > 0) throw RunSuspended.merge(thrown as RunSuspended[]);
    const joined = Object.fromEntries(results.map((r) => [r.branchId, r.ok ? r.result : { error: r.error }]));
    return { delta: { [node.output_key ?? node.id]: joined } };
  },
};

async function runBranch(
  ctx: NodeContext,
  forkId: string,
  branchId: string,
  graph: NodeContainer,
  resultKey?: string,
): Promise<BranchResult> {
  const { env } = ctx;
  const path = `${ctx.path}[${branchId}]`;
  const frame = { nodeId: forkId, spanId: ctx.spanId, parentSpanId: ctx.placement.parentSpanId, path, ...placed(ctx), branchId };
  const started = env.clock.now().getTime();
  if (!ctx.replay?.branchesStarted.has(branchId)) await env.log.append({ type: 'branch.started', ...frame, data: { forkId, branchId } });
  const outcome = await ctx.runGraph(
    graph,
    ctx.state,
    { containerPath: path, parentSpanId: ctx.spanId, iteration: ctx.placement.iteration, branchId },
    env,
    ctx.scope,
  );
  const durationMs = env.clock.now().getTime() - started;
  const record = !ctx.replay?.branchesCompleted.has(branchId);
  if (outcome.status === 'failed') {
    if (record)
      await env.log.append({
        type: 'branch.completed',
        ...frame,
        data: { forkId, branchId, durationMs, status: 'failed', error: outcome.error },
      });
    return { branchId, ok: false, error: outcome.error };
  }
  const result = resultKey ? (outcome.state[resultKey] ?? null) : changedKeys(ctx.state, outcome.state);
  if (record)
    await env.log.append({
      type: 'branch.completed',
      ...frame,
      data: { forkId, branchId, durationMs, status: 'completed' },
    });
  return { branchId, ok: true, result };
}
