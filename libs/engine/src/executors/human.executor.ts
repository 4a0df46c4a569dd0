import { SpindleError, type InputForm } from '@spindle/contracts';
import { renderTemplate, renderValue } from '../interpreter/render-template';
import { RunSuspended } from '../interpreter/suspension';
import { placed, type NodeExecutor } from './node-executor';

interface HumanInput {
  prompt: string;
  form: InputForm;
}

/**
 * Asks a person: appends `input.requested` and suspends the run (the runner lets go of it).
 * When the run resumes, the node finds the answer in the log: it writes it to `output_key`
 * and follows `rejected` for a refusal when that edge is wired, or `timeout` for an expired
 * request (failing with `input_timeout` when that edge is not wired).
 */
export const humanExecutor: NodeExecutor<'human', HumanInput> = {
  failureCode: 'node_failed',
  prepare: (node, state) => ({
    prompt: renderTemplate(node.prompt, state),
    form: {
      kind: node.form,
      ...(node.schema ? { schema: node.schema } : {}),
      ...(node.plan !== undefined ? { plan: renderValue(node.plan, state) } : {}),
    },
  }),
  async execute(node, input, ctx) {
    const { env } = ctx;
    const asked = ctx.replay?.inputRequests[0];
    if (!asked) {
      const requestId = env.ids.requestId();
      const expiresAt = node.timeout_ms ? new Date(env.clock.now().getTime() + node.timeout_ms).toISOString() : undefined;
      await env.log.append({
        type: 'input.requested',
        nodeId: ctx.nodeId,
        spanId: ctx.spanId,
        parentSpanId: ctx.placement.parentSpanId,
        path: ctx.path,
        ...placed(ctx),
        data: { requestId, prompt: input.prompt, form: input.form, mode: node.mode, ...(expiresAt ? { expiresAt } : {}) },
      });
      throw new RunSuspended([requestId], 'input');
    }
    const answer = env.history?.answerTo(asked.data.requestId);
    if (!answer || answer.type !== 'input.answered') throw new RunSuspended([asked.data.requestId], 'input');
    if (answer.data.timedOut) {
      if (ctx.handles.has('timeout')) return { delta: {}, handle: 'timeout' };
      throw new SpindleError('input_timeout', `nobody answered "${node.id}" within ${node.timeout_ms} ms`);
    }
    const value = answer.data.answer ?? {};
    const refused = value.approved === false && ctx.handles.has('rejected');
    return { delta: { [node.output_key ?? node.id]: value }, ...(refused ? { handle: 'rejected' } : {}) };
  },
};
