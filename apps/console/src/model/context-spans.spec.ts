import { describe, expect, it } from 'vitest';
import type { RunEvent } from '@spindle/contracts';
import { deriveRunView } from './run-view';
import { envelope, queuedAndStarted } from './support-node.fixture';
import { budgetFacts, compactionSummary } from './context-spans';

const events = [
  ...queuedAndStarted,
  {
    ...envelope(3, 'cut-1', 'node-1'),
    type: 'context.truncated',
    data: { kind: 'history', target: 'history', tokensBefore: 9_000, tokensAfter: 2_000, strategy: 'sentence', droppedMessages: 40 },
  },
  {
    ...envelope(4, 'mem-1', 'node-1'),
    type: 'memory.compacted',
    data: {
      memoryKey: 'messages',
      trigger: 'tokens',
      messagesBefore: 62,
      messagesAfter: 7,
      tokensBefore: 9_000,
      tokensAfter: 800,
      summary: 'Ada asked about order 42.',
      summaryModel: 'offline:echo',
    },
  },
] as unknown as RunEvent[];

describe('context and memory spans', () => {
  const view = deriveRunView(events);
  const cut = view.spans.find((s) => s.kind === 'context')!;
  const memory = view.spans.find((s) => s.kind === 'memory')!;

  it('sit in the span tree under their node, closed at the instant they happened', () => {
    const node = view.spans.find((s) => s.kind === 'node')!;
    expect(node.children).toEqual([cut.key, memory.key]);
    expect(cut).toMatchObject({ label: 'history history', status: 'completed', startSeq: 3, endSeq: 3 });
    expect(memory).toMatchObject({ label: 'compacted messages', status: 'completed' });
  });

  it('show the part, tokens before → after and strategy; and a compaction with its summary', () => {
    expect(budgetFacts(cut)).toEqual([
      ['part', 'history history'],
      ['tokens', '9000 → 2000 tokens'],
      ['strategy', 'sentence'],
      ['dropped', '40 messages'],
    ]);
    expect(budgetFacts(memory)).toEqual([
      ['memory', 'messages'],
      ['trigger', 'tokens'],
      ['messages', '62 → 7 messages'],
      ['tokens', '9000 → 800 tokens'],
      ['summarized by', 'offline:echo'],
    ]);
    expect(compactionSummary(memory)).toBe('Ada asked about order 42.');
    expect(budgetFacts(view.spans.find((s) => s.kind === 'node')!)).toBeUndefined();
  });
});
