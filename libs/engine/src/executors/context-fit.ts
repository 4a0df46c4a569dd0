import { messageHash } from '../hashing/message-hash';
import { assemblePrompt, reapplyCuts, type PromptInput } from '../context/assemble-prompt';
import type { ContextBudget } from '../context/context-budget';
import type { ChatMessage } from '../ports';
import { placed, type NodeContext } from './node-executor';

/**
 * The messages a model call sends, fitted to the node's budget: each cut is a `context.truncated`
 * child span of the node, appended before the `model.started` it shapes. A resumed node applies
 * the cuts its log recorded for the call instead of planning them again (and appends none), so it
 * sends the very prompt the first attempt did. Call once per model call, in call order.
 */
export async function fitPrompt(ctx: NodeContext, input: PromptInput, budget: ContextBudget | undefined): Promise<ChatMessage[]> {
  // Taken even without a budget: the record's cursor moves once per model call.
  const recorded = ctx.replay?.nextContextCuts();
  if (!budget) return [...input.messages];
  if (recorded) return reapplyCuts(input, budget, recorded).messages;
  const { messages, cuts } = assemblePrompt(input, budget);
  for (const cut of cuts)
    await ctx.env.log.append({
      type: 'context.truncated',
      nodeId: ctx.nodeId,
      spanId: ctx.env.ids.spanId(),
      parentSpanId: ctx.spanId,
      path: ctx.path,
      ...placed(ctx),
      data: cut,
    });
  return messages;
}

/**
 * Which of a call's messages `model.started` logs in full. Uncut, that is the ones the node
 * appended since its previous call (earlier ones go by hash). Once a cut changed a message the
 * node holds, it is every message from the first one whose hash was never logged in this
 * execution: a hash in `history` always names a message the log has in full.
 */
export class LoggedMessages {
  private readonly hashes = new Set<string>();
  private drifted = false;

  /** `held`: the node's own messages; `sent`: what fitPrompt made of them; `appended`: how many `held` gained. */
  fresh(sent: readonly ChatMessage[], held: readonly ChatMessage[], appended: number): number {
    this.drifted ||= sent.length !== held.length || sent.some((m, i) => m !== held[i]);
    const hashes = sent.map(hashOf);
    const first = this.drifted ? hashes.findIndex((h) => !this.hashes.has(h)) : sent.length - appended;
    for (const h of hashes) this.hashes.add(h);
    return first === -1 ? 0 : sent.length - first;
  }
}

const hashes = new WeakMap<ChatMessage, string>();
function hashOf(message: ChatMessage): string {
  let hash = hashes.get(message);
  if (hash === undefined) hashes.set(message, (hash = messageHash(message)));
  return hash;
}
