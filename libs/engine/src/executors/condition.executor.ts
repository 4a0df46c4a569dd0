import { evaluateCondition } from '../expressions/cel-expression';
import type { NodeExecutor } from './node-executor';

/** Picks the `true` or `false` edge; writes nothing. */
export const conditionExecutor: NodeExecutor<'condition', { expression: string }> = {
  failureCode: 'expression_error',
  prepare: (node) => ({ expression: node.expression }),
  execute: async (node, _input, ctx) => ({ delta: {}, handle: evaluateCondition(node.expression, ctx.state) ? 'true' : 'false' }),
};
