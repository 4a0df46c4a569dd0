import { SpindleError } from '@spindle/contracts';
import { renderValue } from '../interpreter/render-template';
import { applyDelta, changedKeys } from '../interpreter/state';
import { subgraphRef } from '../definition/subgraph-refs';
import { toGraph } from '../patterns/compile-pattern';
import { failureOf } from './graph-outcome';
import type { NodeExecutor } from './node-executor';

/**
 * Runs a catalog workflow (resolved and embedded in the run when it was queued, so the log alone
 * can replay it) on a fresh state `{ input }`. Its nodes run under this node's path and span,
 * and share the run's budget; its `output` (else everything it wrote) becomes this node's result.
 */
export const subgraphExecutor: NodeExecutor<'subgraph', { workflow: string; version?: number; input: unknown }> = {
  failureCode: 'node_failed',
  prepare: (node, state) => ({
    workflow: node.workflow,
    ...(node.version ? { version: node.version } : {}),
    input: renderValue(node.input, state),
  }),
  async execute(node, input, ctx) {
    const definition = ctx.scope.subgraphs.get(subgraphRef(node.workflow, node.version))?.definition;
    if (!definition)
      throw new SpindleError(
        'workflow_not_found',
        `subgraph "${node.workflow}"${node.version ? ` version ${node.version}` : ''} was not resolved when the run was queued`,
      );
    const start = applyDelta({}, { input: input.input });
    const outcome = await ctx.runGraph(
      toGraph(definition),
      start,
      { ...ctx.placement, containerPath: ctx.path, parentSpanId: ctx.spanId },
      ctx.env,
      ctx.scope,
    );
    if (outcome.status === 'failed') throw failureOf(outcome.error);
    const result = 'output' in outcome.state ? outcome.state.output : changedKeys(start, outcome.state);
    return { delta: { [node.output_key ?? node.id]: result } };
  },
};
