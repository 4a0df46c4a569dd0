import { evaluateCondition } from '../expressions/cel-expression';
import { changedKeys, type RunState } from '../interpreter/state';
import { failureOf } from './graph-outcome';
import type { NodeExecutor } from './node-executor';
import { placed } from './node-executor';

/**
 * Runs the body until `until` holds or `max_steps` iterations have run. Each iteration appends
 * `loop.iteration` and runs under `<loop path>[n]`, its events carrying `iteration: n`, so
 * repeated nodes are told apart by span and path. The loop's delta is everything the body changed.
 */
export const loopExecutor: NodeExecutor<'loop', { max_steps: number; until?: string }> = {
  failureCode: 'node_failed',
  prepare: (node) => ({ max_steps: node.max_steps, ...(node.until ? { until: node.until } : {}) }),
  async execute(node, _input, ctx) {
    let state: RunState = ctx.state;
    for (let iteration = 1; iteration <= node.max_steps; iteration++) {
      if (!ctx.replay?.iterations.has(iteration))
        await ctx.env.log.append({
          type: 'loop.iteration',
          nodeId: ctx.nodeId,
          spanId: ctx.spanId,
          parentSpanId: ctx.placement.parentSpanId,
          path: ctx.path,
          ...placed(ctx),
          iteration,
          data: { iteration, maxSteps: node.max_steps },
        });
      const outcome = await ctx.runGraph(
        node.body,
        state,
        { containerPath: `${ctx.path}[${iteration}]`, parentSpanId: ctx.spanId, iteration, branchId: ctx.placement.branchId },
        ctx.env,
        ctx.scope,
      );
      if (outcome.status === 'failed') throw failureOf(outcome.error);
      state = outcome.state;
      if (node.until && evaluateCondition(node.until, state)) break;
    }
    return { delta: changedKeys(ctx.state, state) };
  },
};
