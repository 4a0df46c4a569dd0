import { SpindleError } from '@spindle/contracts';
import { evaluateCondition } from '../expressions/cel-expression';
import type { NodeExecutor } from './node-executor';

/** Picks the handle of the first route whose CEL expression holds, else the default. */
export const routerExecutor: NodeExecutor<'router', { routes: Array<{ handle: string; when: string }>; default?: string }> = {
  failureCode: 'expression_error',
  prepare: (node) => ({ routes: node.routes, ...(node.default ? { default: node.default } : {}) }),
  async execute(node, input, ctx) {
    const route = input.routes.find((r) => evaluateCondition(r.when, ctx.state));
    const handle = route?.handle ?? input.default;
    if (!handle) throw new SpindleError('expression_error', `router "${node.id}": no route matched and it has no default`);
    return { delta: {}, handle };
  },
};
