import { SpindleError } from '@spindle/contracts';
import { renderValue } from '../interpreter/render-template';
import type { NodeExecutor } from './node-executor';

/**
 * Appends the rendered value to the list at `key` (a new list when the key is absent). `set`
 * can only overwrite, so without this a loop could not keep a record of its rounds (a transcript).
 * The delta is the whole new list: state stays immutable, and the log shows what the list became.
 */
export const appendExecutor: NodeExecutor<'append', { key: string; value: unknown }> = {
  failureCode: 'node_failed',
  prepare: (node, state) => ({ key: node.key, value: renderValue(node.value, state) }),
  async execute(node, input, ctx) {
    const current = ctx.state[node.key] ?? [];
    if (!Array.isArray(current))
      throw new SpindleError('node_failed', `append "${node.id}": state key "${node.key}" holds ${typeof current}, not a list`);
    return { delta: { [node.key]: [...current, input.value] } };
  },
};
