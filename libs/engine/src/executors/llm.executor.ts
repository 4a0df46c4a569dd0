import type { FileRef } from '@spindle/contracts';
import { renderTemplate } from '../interpreter/render-template';
import { attachmentsField, nodeAttachments, withAttachments } from './attachments';
import { callModel } from './model-call';
import type { NodeExecutor } from './node-executor';

interface LlmInput {
  model: string;
  system?: string;
  prompt: string;
  /** The files of `attachments`, resolved from state when the node starts. */
  attachments?: FileRef[];
}

/** One completion; the model call is a child span. */
export const llmExecutor: NodeExecutor<'llm', LlmInput> = {
  failureCode: 'provider_error',
  prepare: (node, state) => ({
    model: node.model,
    ...(node.system !== undefined ? { system: renderTemplate(node.system, state) } : {}),
    prompt: renderTemplate(node.prompt, state),
    ...attachmentsField(nodeAttachments(node.id, node.attachments, state)),
  }),
  async execute(node, input, ctx) {
    const result = await callModel(ctx, {
      model: input.model,
      system: input.system,
      messages: [withAttachments({ role: 'user', content: input.prompt }, input.attachments ?? [])],
      newMessages: 1,
      stream: node.stream,
      script: node.script,
    });
    return { delta: { [node.output_key]: result.text } };
  },
};
