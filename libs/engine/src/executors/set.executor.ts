import { renderValue } from '../interpreter/render-template';
import type { NodeExecutor } from './node-executor';

/** Writes state: the rendered values are the delta. */
export const setExecutor: NodeExecutor<'set', Record<string, unknown>> = {
  failureCode: 'node_failed',
  prepare: (node, state) => renderValue(node.values, state) as Record<string, unknown>,
  execute: async (_node, values) => ({ delta: values }),
};
