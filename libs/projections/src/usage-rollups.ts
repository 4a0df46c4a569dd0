import { addCallUsage, EMPTY_USAGE, type TraceSpan, type Usage, type UsageRollups } from '@spindle/contracts';

/**
 * Tokens and cost of every model call, rolled up per node (an agent is a node) and per fork
 * branch. Every call counts — a retried or repeated one too — with the number of calls beside
 * it, so a repeat shows as such instead of vanishing into a total.
 */
export function rollUpUsage(spans: readonly TraceSpan[]): UsageRollups {
  const byNode: UsageRollups['byNode'] = {};
  const byBranch: UsageRollups['byBranch'] = {};
  for (const span of spans) {
    if (span.kind !== 'model' || !span.usage) continue;
    if (span.nodeId) byNode[span.nodeId] = add(byNode[span.nodeId], span.usage);
    if (span.branchId) byBranch[span.branchId] = add(byBranch[span.branchId], span.usage);
  }
  return { byNode, byBranch };
}

function add(total: (Usage & { calls: number }) | undefined, usage: Usage): Usage & { calls: number } {
  // A roll-up always shows a cost (0 when no call was priced); `unpricedCalls` says what it leaves out.
  const { calls, ...sum } = total ?? { calls: 0, ...EMPTY_USAGE, costUsd: 0 };
  return { calls: calls + 1, ...addCallUsage(sum, usage) };
}
