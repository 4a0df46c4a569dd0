import { costLabel, humanDuration, type ExperimentComparison, type ExperimentItem } from '@spindle/contracts';

/** One cell of the comparison: what an experiment's run of the item gave. */
export interface ComparedCell {
  status: string;
  output: string;
  scores: Record<string, string>;
  runId: string | null;
  /** `completed · 22 tok · $0.00120 · 516 ms`: what the run was and spent (only the status when it never ran). */
  figures: string;
}

export interface ComparedRow {
  itemId: string;
  input: string;
  expected: string;
  cells: Array<ComparedCell | undefined>;
  /** The experiments gave different outputs or scores for this item. */
  differs: boolean;
}

const text = (value: unknown): string =>
  value === null || value === undefined ? '–' : typeof value === 'string' ? value : JSON.stringify(value);

/** The comparison as table rows: each item once, a cell per experiment, and whether they differ. */
export function comparedRows(comparison: ExperimentComparison): ComparedRow[] {
  return comparison.items.map((item) => {
    const cells = comparison.experiments.map(({ experimentId }): ComparedCell | undefined => {
      const r = item.results[experimentId];
      if (!r) return undefined;
      const scores = Object.fromEntries(Object.entries(r.scores).map(([name, value]) => [name, String(value)]));
      return { status: r.status, output: text(r.output), scores, runId: r.runId, figures: figuresOf(r) };
    });
    const keys = new Set(cells.map((c) => (c ? JSON.stringify([c.output, c.scores]) : 'missing')));
    return { itemId: item.itemId, input: text(item.input), expected: text(item.expected), cells, differs: keys.size > 1 };
  });
}

function figuresOf(r: Pick<ExperimentItem, 'status' | 'usage' | 'wallMs'>): string {
  const parts: string[] = [r.status];
  if (r.usage) parts.push(`${r.usage.totalTokens} tok`, costLabel(r.usage));
  if (r.wallMs !== null) parts.push(humanDuration(r.wallMs));
  return parts.join(' · ');
}

/** Every score name the experiments gave, in order. */
export function comparedScoreNames(comparison: ExperimentComparison): string[] {
  return [...new Set(comparison.experiments.flatMap((e) => Object.keys(e.summary.scores)))].sort();
}

/** A mean as the table shows it: two decimals, or – when no item has a number. */
export const meanText = (mean: number | null | undefined): string => (mean === null || mean === undefined ? '–' : mean.toFixed(2));
