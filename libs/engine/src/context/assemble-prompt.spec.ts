import { SpindleError } from '@spindle/contracts';
import type { ChatMessage } from '../ports';
import { assemblePrompt, reapplyCuts, type PromptInput } from './assemble-prompt';
import { contextBudget, type ContextBudget } from './context-budget';
import { promptTokens } from './tokens';

const sentences = (n: number, word = 'alpha') => Array.from({ length: n }, (_, i) => `Sentence ${i} says ${word} again.`).join(' ');
const budget = (limit: number, extra: Partial<ContextBudget> = {}): ContextBudget => ({
  limit,
  strategy: 'sentence',
  cutOrder: ['history', 'tool_result', 'retrieval', 'state_field'],
  ...extra,
});
const turn = (i: number): ChatMessage[] => [
  { role: 'user', content: `question ${i}: ${sentences(20)}` },
  { role: 'assistant', content: '', toolCalls: [{ id: `c${i}`, name: 'lookup', arguments: { i } }] },
  { role: 'tool', toolCallId: `c${i}`, toolName: 'lookup', content: sentences(10, 'beta') },
  { role: 'assistant', content: `answer ${i}` },
];

describe('assemblePrompt', () => {
  it('leaves a prompt within its budget alone', () => {
    const input: PromptInput = { system: 'Be brief.', messages: [{ role: 'user', content: 'hello' }], promptIndex: 0 };
    expect(assemblePrompt(input, budget(100))).toEqual({ messages: input.messages, cuts: [] });
  });

  it('drops the oldest whole turns of the history first, never a tool result without its call', () => {
    const history = [...turn(1), ...turn(2), ...turn(3)];
    const messages: ChatMessage[] = [...history, { role: 'user', content: 'newest' }];
    const whole = promptTokens('sys', messages);
    const fitted = assemblePrompt({ system: 'sys', messages, promptIndex: history.length }, budget(whole - 100));
    expect(fitted.messages).toEqual([...turn(2), ...turn(3), { role: 'user', content: 'newest' }]);
    expect(fitted.cuts).toEqual([
      expect.objectContaining({ kind: 'history', target: 'history', strategy: 'sentence', droppedMessages: 4 }),
    ]);
    expect(fitted.cuts[0].tokensAfter).toBeLessThan(fitted.cuts[0].tokensBefore);
    expect(promptTokens('sys', fitted.messages)).toBeLessThanOrEqual(whole - 100);
  });

  it('cuts a long tool result at a sentence boundary, with a marker, to fit', () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'look it up' }, ...turn(1).slice(1, 3)];
    (messages[2] as { content: string }).content = sentences(2_000, 'gamma');
    const limit = 500;
    const fitted = assemblePrompt({ messages, promptIndex: 0 }, budget(limit));
    const tool = fitted.messages[2] as { content: string };
    expect(tool.content).toMatch(/again\. \[… truncated \d+ tokens\]$/);
    expect(fitted.cuts).toEqual([expect.objectContaining({ kind: 'tool_result', target: 'lookup', strategy: 'sentence' })]);
    expect(promptTokens(undefined, fitted.messages)).toBeLessThanOrEqual(limit);
  });

  it('cuts on a token boundary with `hard`, and cuts priorities lowest first', () => {
    const state = {
      doc: sentences(800, 'delta'),
      kb: { query: 'q', knowledgeBase: 'kb', chunks: [{ id: 'c1', source: 's', score: 1, tokens: 9, text: sentences(800) }] },
    };
    const template = { text: 'Read {{doc}} and {{kb}}', state };
    const content = `Read ${state.doc} and ${JSON.stringify(state.kb)}`;
    const input: PromptInput = { messages: [{ role: 'user', content }], promptIndex: 0, template };
    // Retrieval is cut before the node's own fields when they rank so.
    const fitted = assemblePrompt(input, budget(8_000, { strategy: 'hard', cutOrder: ['retrieval', 'state_field'] }));
    expect(fitted.cuts.map((c) => [c.kind, c.target, c.strategy])).toEqual([['retrieval', 'kb', 'hard']]);
    expect(fitted.messages[0].content.startsWith(`Read ${state.doc} and [1] (s) `)).toBe(true);
    expect(promptTokens(undefined, fitted.messages)).toBeLessThanOrEqual(8_000);
  });

  it('fails with context_budget_exceeded when the system prompt and newest message alone are over', () => {
    const input: PromptInput = { system: sentences(50), messages: [...turn(1), { role: 'user', content: sentences(50) }], promptIndex: 4 };
    expect(() => assemblePrompt(input, budget(200))).toThrow(expect.objectContaining({ code: 'context_budget_exceeded' }) as SpindleError);
  });

  it('re-applies recorded cuts to the very same prompt', () => {
    const history = [...turn(1), ...turn(2)];
    const messages: ChatMessage[] = [...history, { role: 'user', content: 'newest' }, ...turn(3).slice(1, 3)];
    (messages[messages.length - 1] as { content: string }).content = sentences(3_000);
    const input: PromptInput = { system: 'sys', messages, promptIndex: history.length };
    const first = assemblePrompt(input, budget(1_200));
    expect(first.cuts.map((c) => c.kind)).toEqual(['history', 'tool_result']);
    expect(reapplyCuts(input, budget(1_200), first.cuts)).toEqual(first);
    expect(() => reapplyCuts(input, budget(1_200), [{ ...first.cuts[1], target: 'other' }])).toThrow(/matches no part/);
  });
});

describe('contextBudget', () => {
  it('is the smaller of max_input_tokens and the window less the reserve, and orders cuts by priority', () => {
    expect(contextBudget('openai:gpt-4o')).toMatchObject({ limit: 128_000 - 1_024, strategy: 'sentence' });
    expect(contextBudget('openai:gpt-4o', { max_input_tokens: 5_000, reserve_output_tokens: 100 })?.limit).toBe(5_000);
    expect(contextBudget('anthropic:claude-haiku-4-5', { reserve_output_tokens: 4_000 })?.limit).toBe(196_000);
    expect(contextBudget('compatible:llama')).toBeUndefined();
    expect(contextBudget('compatible:llama', { max_input_tokens: 900 })?.limit).toBe(900);
    expect(contextBudget('offline:echo', { priorities: { history: 9, state_fields: 0 } })?.cutOrder).toEqual([
      'state_field',
      'tool_result',
      'retrieval',
      'history',
    ]);
  });
});
