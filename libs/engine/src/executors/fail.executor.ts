import { SpindleError } from '@spindle/contracts';
import { renderTemplate } from '../interpreter/render-template';
import type { NodeExecutor } from './node-executor';

/**
 * Fails the node, and so the run, with the node's code and rendered message. The message is
 * rendered in `prepare`, so `node.started` already shows why the run is about to fail.
 */
export const failExecutor: NodeExecutor<'fail', { code: string; message: string }> = {
  failureCode: 'node_failed',
  prepare: (node, state) => ({ code: node.code, message: renderTemplate(node.message, state) }),
  async execute(node, input) {
    throw new SpindleError(node.code, input.message);
  },
};
