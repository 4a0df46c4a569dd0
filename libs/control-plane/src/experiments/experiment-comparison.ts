import { SpindleError, type Experiment, type ExperimentComparison, type ExperimentItem } from '@spindle/contracts';

/**
 * Two or more experiments side by side, item by item: each dataset item once (in the first
 * experiment's order, then any only the others have), with what each experiment's run gave.
 * Experiments of different datasets do not compare.
 */
export function compareExperiments(
  runs: ReadonlyArray<{ experiment: Experiment; items: readonly ExperimentItem[] }>,
): ExperimentComparison {
  const datasets = new Set(runs.map((r) => r.experiment.dataset.name));
  if (datasets.size > 1) {
    throw new SpindleError('validation_failed', `experiments of different datasets do not compare (${[...datasets].join(', ')})`, {
      issues: [{ field: 'ids', message: 'experiments over one dataset' }],
    });
  }
  const rows = new Map<string, ExperimentComparison['items'][number]>();
  for (const { experiment, items } of runs) {
    for (const item of items) {
      const row = rows.get(item.itemId) ?? { itemId: item.itemId, input: item.input, expected: item.expected, results: {} };
      const { itemId: _id, position: _p, input: _i, expected: _e, ...result } = item;
      row.results[experiment.experimentId] = result;
      rows.set(item.itemId, row);
    }
  }
  return { experiments: runs.map((r) => r.experiment), items: [...rows.values()] };
}

/** The comparison as CSV: an item a row; per experiment its status, output, each score, tokens, cost and wall time. */
export function comparisonCsv(comparison: ExperimentComparison): string {
  const scoreNames = [...new Set(comparison.experiments.flatMap((e) => Object.keys(e.summary.scores)))].sort();
  const header = ['item', 'input', 'expected'];
  for (const e of comparison.experiments) {
    const at = e.experimentId;
    header.push(`${at} status`, `${at} output`, ...scoreNames.map((n) => `${at} ${n}`), `${at} tokens`, `${at} cost_usd`, `${at} wall_ms`);
  }
  const lines = [header];
  for (const row of comparison.items) {
    const cells = [row.itemId, json(row.input), json(row.expected)];
    for (const e of comparison.experiments) {
      const r = row.results[e.experimentId];
      cells.push(
        r?.status ?? '',
        r ? json(r.output) : '',
        ...scoreNames.map((n) => (r && n in r.scores ? String(r.scores[n]) : '')),
        r?.usage ? String(r.usage.totalTokens) : '',
        r?.usage?.costUsd !== undefined ? String(r.usage.costUsd) : '',
        r?.wallMs !== null && r?.wallMs !== undefined ? String(Math.round(r.wallMs)) : '',
      );
    }
    lines.push(cells);
  }
  return `${lines.map((cells) => cells.map(csvCell).join(',')).join('\r\n')}\r\n`;
}

const json = (value: unknown): string =>
  value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);

/**
 * RFC 4180: a cell with a comma, quote or line break is quoted, its quotes doubled; one starting
 * =+-@ (not a number) is prefixed so a spreadsheet does not run it.
 */
function csvCell(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) && !Number.isFinite(Number(text)) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
