import { SpindleError } from '@spindle/contracts';
import { renderValue } from '../interpreter/render-template';
import type { NodeExecutor } from './node-executor';
import { callTool } from './tool-call';

/** Calls one tool with templated arguments and writes its result; here a failing tool fails the node. */
export const toolExecutor: NodeExecutor<'tool', { tool: string; args: Record<string, unknown> }> = {
  failureCode: 'tool_failed',
  prepare: (node, state) => ({ tool: node.tool, args: renderValue(node.args, state) as Record<string, unknown> }),
  async execute(node, input, ctx) {
    const outcome = await callTool(ctx, { id: `${ctx.spanId}:${node.tool}`, name: input.tool, arguments: input.args });
    if (!outcome.ok) throw new SpindleError(outcome.error.code, outcome.error.message, { correlationId: outcome.error.correlationId });
    return { delta: { [node.output_key]: outcome.result } };
  },
};
