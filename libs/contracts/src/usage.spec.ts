import type { Usage } from './run-events';
import { addCallUsage, costLabel, EMPTY_USAGE } from './usage';

describe('adding model calls to a total', () => {
  it('adds tokens and their details, sums priced calls and counts the unpriced ones', () => {
    const priced = { inputTokens: 100, outputTokens: 20, totalTokens: 120, cachedInputTokens: 60, costUsd: 0.25 };
    const unpriced = { inputTokens: 10, outputTokens: 5, totalTokens: 15, reasoningTokens: 3, unpricedCalls: 1 };
    // Recorded before calls said so: no cost means no price.
    const older = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
    const total = [priced, unpriced, older].reduce<Usage>(addCallUsage, EMPTY_USAGE);
    expect(total).toEqual({
      inputTokens: 111,
      outputTokens: 26,
      totalTokens: 137,
      cachedInputTokens: 60,
      reasoningTokens: 3,
      costUsd: 0.25,
      unpricedCalls: 2,
    });
    expect(costLabel(total)).toBe('$0.250 + 2 unpriced calls');
  });

  it('leaves the cost out until some call had a price, and labels such a total unpriced', () => {
    const total = addCallUsage(EMPTY_USAGE, { inputTokens: 1, outputTokens: 1, totalTokens: 2, unpricedCalls: 1 });
    expect(total).not.toHaveProperty('costUsd');
    expect(costLabel(total)).toBe('unpriced');
    expect(costLabel({ costUsd: 0 })).toBe('$0');
    expect(costLabel({ costUsd: 0.00123 })).toBe('$0.00123');
  });
});
