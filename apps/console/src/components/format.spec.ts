import { describe, expect, it } from 'vitest';
import { cost, dateTime, ms, relativeTime, tokenSplit } from './format';

describe('cost and token formatting', () => {
  it('never shows an unpriced call as free, and says what a partly priced total leaves out', () => {
    expect(cost({ costUsd: 0.0123 })).toBe('$0.012');
    expect(cost({ costUsd: 0 })).toBe('$0');
    expect(cost({})).toBe('unpriced');
    expect(cost({ costUsd: 0, unpricedCalls: 2 })).toBe('unpriced');
    expect(cost({ costUsd: 0.5, unpricedCalls: 1 })).toBe('$0.500 + 1 unpriced call');
    expect(cost(undefined)).toBe('–');
    expect(cost({ totalTokens: 0 })).toBe('–');
    expect(cost({ totalTokens: 0, unpricedCalls: 1 })).toBe('unpriced');
  });

  it('shows cached and reasoning tokens where the provider reported them', () => {
    expect(tokenSplit({ inputTokens: 120, outputTokens: 40 })).toBe('120 in / 40 out');
    expect(tokenSplit({ inputTokens: 120, cachedInputTokens: 80, outputTokens: 40, reasoningTokens: 12 })).toBe(
      '120 in (80 cached) / 40 out (12 reasoning)',
    );
  });
});

describe('times', () => {
  it('shows a date with the time, and how long ago it was', () => {
    expect(dateTime(new Date(2026, 11, 1, 8, 4, 5).toISOString())).toBe('2026-12-01 08:04:05');
    expect(dateTime(null)).toBe('–');
    const now = Date.parse('2026-12-01T12:00:00Z');
    expect(relativeTime('2026-12-01T11:59:30Z', now)).toBe('just now');
    expect(relativeTime('2026-12-01T11:55:00Z', now)).toBe('5 min ago');
    expect(relativeTime('2026-12-01T09:00:00Z', now)).toBe('3 h ago');
    expect(relativeTime('2026-11-28T12:00:00Z', now)).toBe('3 d ago');
    expect(relativeTime('2026-12-01T12:10:00Z', now)).toBe('in 10 min');
  });
});

describe('durations', () => {
  it('reads as people say them, never as thousands of seconds', () => {
    expect(ms(1_210_230)).toBe('20 min 10 s');
    expect(ms(259)).toBe('259 ms');
    expect(ms(undefined)).toBe('–');
  });
});
