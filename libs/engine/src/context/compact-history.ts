import type { ChatMessage } from '../ports';
import { messageTokens } from './tokens';

export interface CompactionLimits {
  maxMessages: number;
  maxTokens?: number;
  /** A summary will replace the dropped turns: leave it room (one message, half the token limit). */
  summarized: boolean;
}

export interface CompactionPlan {
  trigger: 'messages' | 'tokens';
  /** Index of the first message kept: a user message, or the last turn when even it is over. */
  keepFrom: number;
  tokensBefore: number;
}

export function conversationTokens(messages: readonly ChatMessage[]): number {
  return messages.reduce((sum, m) => sum + messageTokens(m), 0);
}

/**
 * Which older turns a remembered conversation loses: none while it is within `maxMessages` and
 * `maxTokens`; else the oldest whole turns (a turn starts at a user message, so no tool result
 * outlives its call) until what is kept is within both, the last turn always kept. With a
 * summary coming, the kept turns stay within one message fewer and half the tokens, so the
 * summary fits and the next runs do not compact again at once.
 */
export function planCompaction(messages: readonly ChatMessage[], limits: CompactionLimits): CompactionPlan | undefined {
  const tokens = messages.map(messageTokens);
  const tokensBefore = tokens.reduce((a, b) => a + b, 0);
  const overCount = messages.length > limits.maxMessages;
  const overTokens = limits.maxTokens !== undefined && tokensBefore > limits.maxTokens;
  if (!overCount && !overTokens) return undefined;
  const maxMessages = limits.summarized ? limits.maxMessages - 1 : limits.maxMessages;
  const maxTokens = limits.maxTokens === undefined ? Infinity : limits.summarized ? Math.floor(limits.maxTokens / 2) : limits.maxTokens;
  const lastTurn = Math.max(
    0,
    messages.findLastIndex((m) => m.role === 'user'),
  );
  let keepFrom = 0;
  let kept = tokensBefore;
  while (keepFrom < lastTurn && (messages.length - keepFrom > maxMessages || kept > maxTokens)) {
    let next = keepFrom + 1;
    while (next < lastTurn && messages[next].role !== 'user') next++;
    for (let i = keepFrom; i < next; i++) kept -= tokens[i];
    keepFrom = next;
  }
  return keepFrom === 0 ? undefined : { trigger: overCount ? 'messages' : 'tokens', keepFrom, tokensBefore };
}

/** The dropped turns as the summarizing model reads them: one line per message. */
export function transcriptOf(messages: readonly ChatMessage[]): string {
  return messages
    .map((m) => {
      if (m.role === 'tool') return `tool ${m.toolName}: ${m.content}`;
      const calls = m.role === 'assistant' && m.toolCalls?.length ? ` [calls ${m.toolCalls.map((c) => c.name).join(', ')}]` : '';
      return `${m.role}: ${m.content}${calls}`;
    })
    .join('\n');
}

/** Where a summary stands in the conversation: a user turn, so the turn rule (and providers' role order) still holds. */
export function compactionSummaryMessage(summary: string): ChatMessage {
  return { role: 'user', content: `${SUMMARY_PREFIX}${summary}` };
}
export const SUMMARY_PREFIX = 'Summary of the earlier conversation: ';
