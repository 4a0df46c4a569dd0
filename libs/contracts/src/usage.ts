import type { Usage } from './run-events';

export const EMPTY_USAGE: Readonly<Usage> = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

const DETAILS = ['cachedInputTokens', 'cacheWriteTokens', 'reasoningTokens'] as const;

/**
 * The one way a model call's usage is added to a total (the run's ledger, the trace's totals,
 * per-node and per-branch roll-ups). Token details add up where reported; `costUsd` sums the
 * priced calls and `unpricedCalls` counts the others, so an unpriced call never reads as free. A
 * call recorded before `unpricedCalls` existed is unpriced when it has no `costUsd`.
 */
export function addCallUsage(total: Usage, call: Usage): Usage {
  const sum: Usage = {
    inputTokens: total.inputTokens + call.inputTokens,
    outputTokens: total.outputTokens + call.outputTokens,
    totalTokens: total.totalTokens + call.totalTokens,
  };
  for (const key of DETAILS) {
    const n = (total[key] ?? 0) + (call[key] ?? 0);
    if (n > 0) sum[key] = n;
  }
  if (total.costUsd !== undefined || call.costUsd !== undefined) {
    // Rounded so float sums stay readable; absent until some call had a price.
    sum.costUsd = Math.round(((total.costUsd ?? 0) + (call.costUsd ?? 0)) * 1e9) / 1e9;
  }
  const unpriced = (total.unpricedCalls ?? 0) + unpricedCallsOf(call);
  if (unpriced > 0) sum.unpricedCalls = unpriced;
  return sum;
}

/** 1 for a call without a price (whether or not it says so), else what it reports. */
function unpricedCallsOf(call: Usage): number {
  return call.unpricedCalls ?? (call.costUsd === undefined ? 1 : 0);
}

/**
 * A cost as people read it: `$0.01234`, `$0.500 + 2 unpriced calls`, or `unpriced` when no call
 * had a price. An unpriced call is never shown as free.
 */
export function costLabel(usage: Pick<Usage, 'costUsd' | 'unpricedCalls'>): string {
  const unpriced = usage.unpricedCalls ?? 0;
  if (usage.costUsd === undefined || (unpriced > 0 && usage.costUsd === 0)) return 'unpriced';
  const priced = usage.costUsd === 0 ? '$0' : `$${usage.costUsd.toFixed(usage.costUsd < 0.01 ? 5 : 3)}`;
  return unpriced === 0 ? priced : `${priced} + ${unpriced} unpriced call${unpriced === 1 ? '' : 's'}`;
}
