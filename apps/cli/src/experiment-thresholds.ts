import type { ExperimentSummary } from '@spindle/contracts';
import { InvalidArgumentError } from 'commander';

/** `--fail-under name=0.8`: the score's mean must be at least this. */
export interface ScoreThreshold {
  name: string;
  min: number;
}

/** Parses one `--fail-under` (repeatable: each adds to the list). */
export function collectThreshold(text: string, earlier: ScoreThreshold[] = []): ScoreThreshold[] {
  const match = /^([a-z][a-z0-9_.-]{0,63})=(-?\d+(\.\d+)?)$/.exec(text);
  if (!match) throw new InvalidArgumentError('is a score name, `=` and a number (e.g. correct=0.9)');
  return [...earlier, { name: match[1]!, min: Number(match[2]) }];
}

/**
 * What falls short: a score whose mean is below its threshold, or that no item was given (a
 * threshold on a score nobody gave is a failure, not a pass), and items that did not complete.
 */
export function thresholdFailures(summary: ExperimentSummary, thresholds: readonly ScoreThreshold[]): string[] {
  const failures: string[] = [];
  for (const { name, min } of thresholds) {
    const score = summary.scores[name];
    if (!score || score.mean === null) failures.push(`${name}: no item has a numeric or boolean score of this name`);
    else if (score.mean < min) failures.push(`${name}: mean ${round(score.mean)} < ${min} (over ${score.count} item(s))`);
  }
  return failures;
}

const round = (n: number): string => String(Math.round(n * 10_000) / 10_000);

/** The summary as lines: items by status, cost and tokens, median wall time, each score's mean. */
export function summaryLines(summary: ExperimentSummary): string[] {
  const statuses = Object.entries(summary.byStatus)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
  const wall = summary.wallMsP50 === null ? '-' : `${Math.round(summary.wallMsP50)} ms`;
  const lines = [
    `${summary.items} item(s): ${statuses || 'none'}; $${round(summary.costUsd)}, ${summary.totalTokens} tokens, p50 wall ${wall}`,
  ];
  for (const [name, s] of Object.entries(summary.scores))
    lines.push(`  ${name}: mean ${s.mean === null ? '-' : round(s.mean)} over ${s.count}`);
  return lines;
}
