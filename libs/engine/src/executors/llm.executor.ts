import { renderTemplate } from '../interpreter/render-template';
import { callModel } from './model-call';
import type { NodeExecutor } from './node-executor';

interface LlmInput {
  model: string;
  system?: string;
  prompt: string;
}

/** One completion; the model call is a child span. */
export const llmExecutor: NodeExecutor<'llm', LlmInput> = {
  failureCode: 'provider_error',
  prepare: (node, state) => ({
    model: node.model,
    ...(node.system !== undefined ? { system: renderTemplate(node.system, state) } : {}),
    prompt: renderTemplate(node.prompt, state),
  }),
  async execute(node, input, ctx) {
    const result = await callModel(ctx, {
      model: input.model,
      system: input.system,
      messages: [{ role: 'user', content: input.prompt }],
      newMessages: 1,
      stream: node.stream,
      script: node.script,
    });
    return { delta: { [node.output_key]: result.text } };
  },
};
