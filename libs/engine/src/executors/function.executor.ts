import { SpindleError } from '@spindle/contracts';
import { renderValue } from '../interpreter/render-template';
import type { NodeExecutor } from './node-executor';
import { openUserCodeChannel } from './user-code-channel';

/** Runs code registered with the runner by name; its returned object is the delta. */
export const functionExecutor: NodeExecutor<'function', { function: string; args: Record<string, unknown> }> = {
  failureCode: 'function_failed',
  prepare: (node, state) => ({ function: node.function, args: renderValue(node.args ?? {}, state) as Record<string, unknown> }),
  async execute(node, input, ctx) {
    const fn = ctx.env.functions.get(node.function);
    if (!fn) throw new SpindleError('function_not_found', `no function "${node.function}" is registered with this runner`);
    // User code may act on the world: the log holds the node's start and all that led to it first.
    if (!ctx.env.functions.isPure?.(node.function)) await ctx.env.log.durable();
    const voice = openUserCodeChannel(ctx, { kind: 'function', name: node.function, parentSpanId: ctx.spanId });
    let result: Awaited<ReturnType<typeof fn>>;
    try {
      result = await fn({ ...voice, state: ctx.state, args: input.args, nodeId: ctx.nodeId, runId: ctx.env.runId, signal: ctx.signal });
    } finally {
      // What the code said is in the log before the node's end.
      await voice.close();
    }
    if (result === undefined) return { delta: {} };
    if (result === null || typeof result !== 'object' || Array.isArray(result)) {
      throw new SpindleError(
        'function_failed',
        `function "${node.function}" must return an object of state keys (or nothing), ` +
          `got ${Array.isArray(result) ? 'an array' : typeof result}`,
      );
    }
    return { delta: result };
  },
};
