import type { BuiltinEvaluatorSpec, ExperimentSummary, ScoreValue, Usage } from '@spindle/contracts';
import { judge, type EvaluatedRun } from '@spindle/engine';

/** Where an experiment stands, as its rows say. */
export interface ExperimentProgress {
  concurrency: number;
  maxCostUsd: number | null;
  pending: number;
  running: number;
  /** What the items that ended cost. */
  spentUsd: number;
}

/** What a pass does: start this many pending items, skip the rest, end the experiment. */
export interface ExperimentStep {
  start: number;
  skipPending: boolean;
  end?: 'completed' | 'budget_exceeded';
}

/**
 * The pass's decision, pure: within the budget, fill the free slots; at or past it, start nothing
 * more (the pending items are skipped) and end once the running ones have.
 */
export function nextExperimentStep(p: ExperimentProgress): ExperimentStep {
  if (p.maxCostUsd !== null && p.spentUsd >= p.maxCostUsd) {
    return { start: 0, skipPending: p.pending > 0, ...(p.running === 0 ? { end: 'budget_exceeded' as const } : {}) };
  }
  if (p.pending === 0 && p.running === 0) return { start: 0, skipPending: false, end: 'completed' };
  return { start: Math.max(0, Math.min(p.pending, p.concurrency - p.running)), skipPending: false };
}

/**
 * An item's judgements: each experiment evaluator on the run, an `exact_match` without its own
 * `expected` against the item's. One that cannot judge gives its reason instead of a score.
 */
export function judgeItem(
  evaluators: readonly BuiltinEvaluatorSpec[],
  expected: unknown,
  run: EvaluatedRun,
): { scores: Array<{ name: string; value: ScoreValue; comment: string; type: string }>; errors: Record<string, string> } {
  const scores: Array<{ name: string; value: ScoreValue; comment: string; type: string }> = [];
  const errors: Record<string, string> = {};
  for (const spec of evaluators) {
    const withExpected = spec.type === 'exact_match' && spec.expected === undefined ? { ...spec, expected } : spec;
    try {
      scores.push({ ...judge(withExpected, run), type: spec.type });
    } catch (e) {
      errors[spec.name ?? spec.type] = (e as Error).message;
    }
  }
  return { scores, errors };
}

/** An item as the summary reads it. */
export interface SummarizedItem {
  status: string;
  usage: Usage | null;
  wallMs: number | null;
  scores: Record<string, ScoreValue>;
}

/** The experiment's totals: items by status, cost, tokens, median wall time, each score's count and mean. */
export function experimentSummary(items: readonly SummarizedItem[]): ExperimentSummary {
  const byStatus: Record<string, number> = {};
  const sums = new Map<string, { count: number; numbers: number; total: number }>();
  let costUsd = 0;
  let totalTokens = 0;
  const walls: number[] = [];
  for (const item of items) {
    byStatus[item.status] = (byStatus[item.status] ?? 0) + 1;
    costUsd += item.usage?.costUsd ?? 0;
    totalTokens += item.usage?.totalTokens ?? 0;
    if (item.wallMs !== null) walls.push(item.wallMs);
    for (const [name, value] of Object.entries(item.scores)) {
      const sum = sums.get(name) ?? { count: 0, numbers: 0, total: 0 };
      sum.count += 1;
      const number = typeof value === 'number' ? value : typeof value === 'boolean' ? Number(value) : undefined;
      if (number !== undefined) {
        sum.numbers += 1;
        sum.total += number;
      }
      sums.set(name, sum);
    }
  }
  walls.sort((a, b) => a - b);
  const scores = Object.fromEntries(
    [...sums]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, s]) => [name, { count: s.count, mean: s.numbers ? s.total / s.numbers : null }]),
  );
  return {
    items: items.length,
    byStatus,
    costUsd,
    totalTokens,
    wallMsP50: walls.length ? walls[Math.floor((walls.length - 1) / 2)]! : null,
    scores,
  };
}
