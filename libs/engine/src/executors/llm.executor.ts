import type { FileRef } from '@spindle/contracts';
import { renderTemplate } from '../interpreter/render-template';
import { attachmentsField, nodeAttachments, withAttachments } from './attachments';
import { callModel } from './model-call';
import { contextBudget } from '../context/context-budget';
import { fitPrompt } from './context-fit';
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
    // The prompt's fields are cut to the node's budget, never the rest of it (see context/assemble-prompt.ts).
    const template = { text: node.prompt, state: ctx.state };
    const prompt = {
      system: input.system,
      messages: [withAttachments({ role: 'user', content: input.prompt }, input.attachments ?? [])],
      promptIndex: 0,
      template,
    };
    const result = await callModel(ctx, {
      model: input.model,
      system: input.system,
      messages: await fitPrompt(ctx, prompt, contextBudget(input.model, node.context)),
      newMessages: 1,
      stream: node.stream,
      script: node.script,
    });
    return { delta: { [node.output_key]: result.text } };
  },
};
