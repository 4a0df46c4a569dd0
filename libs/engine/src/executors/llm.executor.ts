import { renderTemplate } from '../interpreter/render-template';
import { toErrorInfo } from '../interpreter/error-info';
import type { NodeContext, NodeExecutor } from './node-executor';

interface LlmInput {
  model: string;
  system?: string;
  prompt: string;
}

/** One completion. The model call is a child span: `model.started` / `model.completed|failed`. */
export const llmExecutor: NodeExecutor<'llm', LlmInput> = {
  failureCode: 'provider_error',
  prepare: (node, state) => ({
    model: node.model,
    ...(node.system !== undefined ? { system: renderTemplate(node.system, state) } : {}),
    prompt: renderTemplate(node.prompt, state),
  }),
  async execute(node, input, ctx) {
    const text = await callModel(ctx, input, node.stream);
    return { delta: { [node.output_key]: text } };
  },
};

async function callModel(ctx: NodeContext, input: LlmInput, stream: boolean): Promise<string> {
  const { env } = ctx;
  const spanId = env.ids.spanId();
  const span = { nodeId: ctx.nodeId, spanId, parentSpanId: ctx.spanId, path: ctx.path };
  const started = env.clock.now().getTime();
  await env.log.append({ type: 'model.started', ...span, data: { model: input.model, system: input.system, prompt: input.prompt, stream } });
  try {
    const result = await env.model.generate({
      model: input.model,
      system: input.system,
      messages: [{ role: 'user', content: input.prompt }],
      stream,
      signal: env.signal,
      onDelta: stream ? (text) => env.tokens.push({ nodeId: ctx.nodeId, spanId: ctx.spanId, afterSeq: ctx.startedSeq, text }) : undefined,
    });
    env.tokens.flush(ctx.spanId);
    const runUsage = ctx.usage.add(result.usage);
    await env.log.append({
      type: 'model.completed',
      ...span,
      data: { model: input.model, text: result.text, usage: result.usage, finishReason: result.finishReason, durationMs: env.clock.now().getTime() - started, runUsage },
    });
    return result.text;
  } catch (error) {
    env.tokens.flush(ctx.spanId);
    if (env.signal.aborted) throw env.signal.reason ?? error;
    const info = toErrorInfo(error, 'provider_error', () => env.ids.correlationId(), env.reportRedacted);
    await env.log.append({ type: 'model.failed', ...span, data: { model: input.model, error: info, durationMs: env.clock.now().getTime() - started } });
    throw error;
  }
}
