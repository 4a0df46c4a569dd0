import { compactionSummaryMessage, conversationTokens, planCompaction, transcriptOf } from '../context/compact-history';
import { contextBudget } from '../context/context-budget';
import type { AgentNode } from '../definition/workflow-definition.schema';
import type { ChatMessage } from '../ports';
import { fitPrompt } from './context-fit';
import { callModel } from './model-call';
import { placed, type NodeContext } from './node-executor';

/** What a summarizing model is told when the node gives no `memory.summarize.prompt`. */
export const DEFAULT_SUMMARY_PROMPT =
  'Summarize the conversation below for your own later reference. Keep names, facts, decisions, open questions and ' +
  'anything the user asked you to remember. Answer with the summary only.';

/**
 * The conversation an agent writes back under its `memory_key`, compacted when it is over the
 * node's `memory` limits (see compact-history.ts): the oldest whole turns dropped, or with
 * `summarize` replaced by one message a model call (a child span like any other) writes about
 * them. Each compaction is a `memory.compacted` child event; a resumed node that already
 * recorded one does not record it again (its summary call is replayed from the log).
 */
export async function rememberConversation(
  ctx: NodeContext,
  node: AgentNode & { memory_key: string },
  messages: ChatMessage[],
): Promise<ChatMessage[]> {
  const memoryKey = node.memory_key;
  const summarize = node.memory?.summarize;
  const plan = planCompaction(messages, {
    maxMessages: node.memory?.max_messages ?? node.memory_max_messages,
    maxTokens: node.memory?.max_tokens,
    summarized: summarize !== undefined,
  });
  if (!plan) return messages;
  const kept = messages.slice(plan.keepFrom);
  const summary = summarize ? await summaryOf(ctx, summarize, messages.slice(0, plan.keepFrom)) : undefined;
  const compacted = summary === undefined ? kept : [compactionSummaryMessage(summary), ...kept];
  if (!ctx.replay?.compacted)
    await ctx.env.log.append({
      type: 'memory.compacted',
      nodeId: ctx.nodeId,
      spanId: ctx.env.ids.spanId(),
      parentSpanId: ctx.spanId,
      path: ctx.path,
      ...placed(ctx),
      data: {
        memoryKey,
        trigger: plan.trigger,
        messagesBefore: messages.length,
        messagesAfter: compacted.length,
        tokensBefore: plan.tokensBefore,
        tokensAfter: conversationTokens(compacted),
        ...(summary !== undefined && summarize ? { summary, summaryModel: summarize.model } : {}),
      },
    });
  return compacted;
}

async function summaryOf(ctx: NodeContext, summarize: { model: string; prompt?: string }, dropped: ChatMessage[]): Promise<string> {
  // The transcript is a state field of the summary's prompt, so the summary model's own budget may cut it.
  const template = { text: '{{transcript}}', state: { transcript: transcriptOf(dropped) } };
  const system = summarize.prompt ?? DEFAULT_SUMMARY_PROMPT;
  const messages = await fitPrompt(
    ctx,
    { system, messages: [{ role: 'user', content: template.state.transcript }], promptIndex: 0, template },
    contextBudget(summarize.model),
  );
  const reply = await callModel(ctx, { model: summarize.model, system, messages, newMessages: 1, stream: false });
  return reply.text;
}
