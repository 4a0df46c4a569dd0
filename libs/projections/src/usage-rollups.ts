import { addCallUsage, EMPTY_USAGE, type TraceSpan, type Usage, type UsageRollups } from '@spindle/contracts';

/**
 * Tokens and cost of every model call and of what user code reported spending (`usage` spans),
 * rolled up per node (an agent is a node) and per fork branch. Every call counts — a retried or
 * repeated one too — with the number of model calls beside it, so a repeat shows as such instead
 * of vanishing into a total.
 */
export function rollUpUsage(spans: readonly TraceSpan[]): UsageRollups {
  const byNode: UsageRollups['byNode'] = {};
  const byBranch: UsageRollups['byBranch'] = {};
  for (const span of spans) {
    if ((span.kind !== 'model' && span.kind !== 'usage') || !span.usage) continue;
    const calls = span.kind === 'model' ? 1 : 0;
    if (span.nodeId) byNode[span.nodeId] = add(byNode[span.nodeId], span.usage, calls);
    if (span.branchId) byBranch[span.branchId] = add(byBranch[span.branchId], span.usage, calls);
  }
  return { byNode, byBranch };
}

function add(total: (Usage & { calls: number }) | undefined, usage: Usage, calls: number): Usage & { calls: number } {
  // A roll-up always shows a cost (0 when no call was priced); `unpricedCalls` says what it leaves out.
  const { calls: before, ...sum } = total ?? { calls: 0, ...EMPTY_USAGE, costUsd: 0 };
  return { calls: before + calls, ...addCallUsage(sum, usage) };
}
