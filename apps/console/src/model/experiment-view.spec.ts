import { describe, expect, it } from 'vitest';
import type { ExperimentComparison } from '@spindle/contracts';
import { comparedRows, comparedScoreNames, meanText } from './experiment-view';

const summary = (scores: Record<string, { count: number; mean: number | null }>) => ({
  items: 2,
  byStatus: { completed: 2 },
  costUsd: 0,
  totalTokens: 0,
  wallMsP50: 10,
  scores,
});
const experiment = (experimentId: string, scores: Record<string, { count: number; mean: number | null }>) => ({
  experimentId,
  name: null,
  dataset: { name: 'capitals', version: 1 },
  workflow: { name: 'capital', version: 1 },
  parameters: null,
  concurrency: 1,
  maxCostUsd: null,
  status: 'completed' as const,
  createdAt: '2026-12-04T10:00:00.000Z',
  createdBy: { kind: 'key' as const, id: 'k', name: 'ci' },
  endedAt: null,
  summary: summary(scores),
});
const result = (output: unknown, correct: boolean) => ({
  runId: 'r',
  status: 'completed' as const,
  output,
  error: null,
  usage: null,
  wallMs: 5,
  scores: { correct },
  evaluatorErrors: {},
});

describe('the experiments comparison table', () => {
  const comparison: ExperimentComparison = {
    experiments: [
      experiment('a', { correct: { count: 2, mean: 0.5 } }),
      experiment('b', { correct: { count: 2, mean: 1 }, tone: { count: 1, mean: null } }),
    ],
    items: [
      {
        itemId: 'i1',
        input: { q: 'France' },
        expected: 'Paris',
        results: { a: result({ answer: 'Paris' }, true), b: result({ answer: 'Paris' }, true) },
      },
      {
        itemId: 'i2',
        input: { q: 'Italy' },
        expected: 'Rome',
        results: { a: result({ answer: 'Paris' }, false), b: result({ answer: 'Rome' }, true) },
      },
      { itemId: 'i3', input: 'Oslo?', expected: null, results: { b: result('Oslo', true) } },
    ],
  };

  it('marks the items whose outputs or scores differ, and a missing result as a difference', () => {
    expect(comparedRows(comparison).map((r) => [r.itemId, r.differs])).toEqual([
      ['i1', false],
      ['i2', true],
      ['i3', true],
    ]);
    const [, italy, oslo] = comparedRows(comparison);
    expect(italy!.cells.map((c) => [c?.output, c?.scores.correct])).toEqual([
      ['{"answer":"Paris"}', 'false'],
      ['{"answer":"Rome"}', 'true'],
    ]);
    expect([oslo!.input, oslo!.expected, oslo!.cells[0]]).toEqual(['Oslo?', '–', undefined]);
  });

  it('gives each cell the run’s status, tokens, cost and wall time, so items compare on them too', () => {
    const priced = {
      ...result({ answer: 'Rome' }, true),
      usage: { inputTokens: 20, outputTokens: 2, totalTokens: 22, costUsd: 0.0012 },
      wallMs: 516,
    };
    const unpriced = { ...result({ answer: 'Rome' }, true), usage: { inputTokens: 10, outputTokens: 4, totalTokens: 14 }, wallMs: 1500 };
    const skipped = { ...result(null, true), status: 'skipped' as const, runId: null, wallMs: null, scores: {} };
    const [row] = comparedRows({
      ...comparison,
      items: [{ itemId: 'i', input: 'x', expected: null, results: { a: priced, b: unpriced } }],
    });
    expect(row!.cells.map((c) => c?.figures)).toEqual(['completed · 22 tok · $0.00120 · 516 ms', 'completed · 14 tok · unpriced · 1.5 s']);
    const [none] = comparedRows({ ...comparison, items: [{ itemId: 'j', input: 'x', expected: null, results: { a: skipped } }] });
    expect(none!.cells[0]?.figures).toBe('skipped');
  });

  it('lists every score name once and shows means to two decimals', () => {
    expect(comparedScoreNames(comparison)).toEqual(['correct', 'tone']);
    expect([meanText(0.5), meanText(1), meanText(null), meanText(undefined)]).toEqual(['0.50', '1.00', '–', '–']);
  });
});
