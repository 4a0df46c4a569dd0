import { describe, expect, it } from 'vitest';
import { cost, tokenSplit } from './format';

describe('cost and token formatting', () => {
  it('never shows an unpriced call as free, and says what a partly priced total leaves out', () => {
    expect(cost({ costUsd: 0.0123 })).toBe('$0.012');
    expect(cost({ costUsd: 0 })).toBe('$0');
    expect(cost({})).toBe('unpriced');
    expect(cost({ costUsd: 0, unpricedCalls: 2 })).toBe('unpriced');
    expect(cost({ costUsd: 0.5, unpricedCalls: 1 })).toBe('$0.500 + 1 unpriced call');
    expect(cost(undefined)).toBe('–');
  });

  it('shows cached and reasoning tokens where the provider reported them', () => {
    expect(tokenSplit({ inputTokens: 120, outputTokens: 40 })).toBe('120 in / 40 out');
    expect(tokenSplit({ inputTokens: 120, cachedInputTokens: 80, outputTokens: 40, reasoningTokens: 12 })).toBe(
      '120 in (80 cached) / 40 out (12 reasoning)',
    );
  });
});
