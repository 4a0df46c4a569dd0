import { countTokens } from './tokens';
import { truncateText } from './truncate-text';

const text = Array.from({ length: 400 }, (_, i) => `Line ${i} is a sentence! Is it? Yes.`).join(' ');

describe('truncateText', () => {
  it('keeps a text within its budget as it is', () => {
    expect(truncateText('short.', 10, 'sentence')).toEqual({ text: 'short.', tokensBefore: 2, tokensAfter: 2 });
  });

  it.each(['hard', 'sentence'] as const)('fits %s cuts in the budget, with the dropped count in the marker', (strategy) => {
    const cut = truncateText(text, 100, strategy);
    expect(cut.tokensBefore).toBe(countTokens(text));
    expect(cut.tokensAfter).toBeLessThanOrEqual(100);
    const dropped = Number(/\[… truncated (\d+) tokens\]$/.exec(cut.text)?.[1]);
    expect(dropped).toBeGreaterThan(cut.tokensBefore - 100);
    expect(countTokens(cut.text)).toBeLessThanOrEqual(cut.tokensAfter + 2);
    if (strategy === 'sentence') expect(cut.text).toMatch(/[.!?] \[… truncated/);
  });

  it('gives the same text when cut again to its own size (how a resume re-applies it)', () => {
    for (const strategy of ['hard', 'sentence'] as const)
      for (const budget of [37, 100, 333]) {
        const cut = truncateText(text, budget, strategy);
        expect(truncateText(text, cut.tokensAfter, strategy)).toEqual(cut);
      }
  });

  it('keeps only the marker when the budget is below it', () => {
    expect(truncateText(text, 1, 'hard').text).toMatch(/^ \[… truncated \d+ tokens\]$/);
  });

  it('counts with a real BPE tokenizer (o200k_base), not characters', () => {
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1);
  });
});
