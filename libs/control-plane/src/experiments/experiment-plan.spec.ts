import { builtinEvaluatorSpecSchema, type Experiment, type ExperimentItem } from '@spindle/contracts';
import { comparisonCsv, compareExperiments } from './experiment-comparison';
import { experimentSummary, judgeItem, nextExperimentStep } from './experiment-plan';

const progress = { concurrency: 3, maxCostUsd: null, pending: 10, running: 1, spentUsd: 0 };

describe('nextExperimentStep', () => {
  it('fills the free slots, and ends once nothing is pending or running', () => {
    expect(nextExperimentStep(progress)).toEqual({ start: 2, skipPending: false });
    expect(nextExperimentStep({ ...progress, pending: 1 })).toEqual({ start: 1, skipPending: false });
    expect(nextExperimentStep({ ...progress, running: 3 })).toEqual({ start: 0, skipPending: false });
    expect(nextExperimentStep({ ...progress, pending: 0, running: 0 })).toEqual({ start: 0, skipPending: false, end: 'completed' });
  });

  it('starts nothing past the budget, skips what is pending, and ends when the running ones have', () => {
    const spent = { ...progress, maxCostUsd: 0.5, spentUsd: 0.5 };
    expect(nextExperimentStep(spent)).toEqual({ start: 0, skipPending: true });
    expect(nextExperimentStep({ ...spent, pending: 0, running: 0 })).toEqual({ start: 0, skipPending: false, end: 'budget_exceeded' });
    expect(nextExperimentStep({ ...spent, spentUsd: 0.49 })).toEqual({ start: 2, skipPending: false });
  });
});

describe('judgeItem and experimentSummary', () => {
  const evaluators = [
    builtinEvaluatorSpecSchema.parse({ type: 'exact_match', name: 'correct', path: 'answer' }),
    builtinEvaluatorSpecSchema.parse({ type: 'exact_match', name: 'always_oslo', path: 'answer', expected: 'Oslo' }),
    builtinEvaluatorSpecSchema.parse({ type: 'numeric_tolerance', name: 'close', path: 'total', expected: 1, tolerance: 0 }),
  ];

  it('compares an exact_match without `expected` with the item’s, and keeps why one could not judge', () => {
    const judged = judgeItem(evaluators, 'Rome', { output: { answer: 'Rome' }, wallMs: 5, costUsd: 0 });
    expect(judged.scores.map((s) => [s.name, s.value])).toEqual([
      ['correct', true],
      ['always_oslo', false],
    ]);
    expect(judged.errors).toEqual({ close: 'the output has no total' });
  });

  it('sums the items: by status, cost, tokens, median wall time, and each score’s count and mean', () => {
    const usage = (costUsd: number, totalTokens: number) => ({ inputTokens: 0, outputTokens: 0, totalTokens, costUsd });
    expect(
      experimentSummary([
        { status: 'completed', usage: usage(0.1, 10), wallMs: 30, scores: { correct: true, tone: 'ok' } },
        { status: 'completed', usage: usage(0.2, 20), wallMs: 10, scores: { correct: false, quality: 0.5 } },
        { status: 'failed', usage: usage(0, 0), wallMs: 20, scores: {} },
        { status: 'skipped', usage: null, wallMs: null, scores: {} },
      ]),
    ).toEqual({
      items: 4,
      byStatus: { completed: 2, failed: 1, skipped: 1 },
      costUsd: expect.closeTo(0.3, 10),
      totalTokens: 30,
      wallMsP50: 20,
      scores: { correct: { count: 2, mean: 0.5 }, quality: { count: 1, mean: 0.5 }, tone: { count: 1, mean: null } },
    });
  });
});

describe('compareExperiments and comparisonCsv', () => {
  const experiment = (experimentId: string, dataset = 'capitals'): Experiment => ({
    experimentId,
    name: null,
    dataset: { name: dataset, version: 1 },
    workflow: { name: 'capital', version: 1 },
    parameters: null,
    concurrency: 1,
    maxCostUsd: null,
    status: 'completed',
    createdAt: '2026-12-04T10:00:00.000Z',
    createdBy: { kind: 'key', id: 'k', name: 'ci' },
    endedAt: null,
    summary: { items: 1, byStatus: {}, costUsd: 0, totalTokens: 0, wallMsP50: null, scores: { correct: { count: 1, mean: 1 } } },
  });
  const item = (itemId: string, output: unknown, correct: boolean): ExperimentItem => ({
    itemId,
    position: 0,
    input: { q: 'Italy, capital?' },
    expected: 'Rome',
    runId: 'r',
    status: 'completed',
    output,
    error: null,
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2, costUsd: 0.001 },
    wallMs: 12.4,
    scores: { correct },
    evaluatorErrors: {},
  });

  it('puts each item once with every experiment’s result, and writes RFC 4180 CSV that a spreadsheet will not run', () => {
    const comparison = compareExperiments([
      { experiment: experiment('exp_a'), items: [item('i1', '=HYPERLINK("x")', false)] },
      { experiment: experiment('exp_b'), items: [item('i1', 'Rome', true), item('i2', 'Oslo', true)] },
    ]);
    expect(comparison.items.map((i) => [i.itemId, Object.keys(i.results)])).toEqual([
      ['i1', ['exp_a', 'exp_b']],
      ['i2', ['exp_b']],
    ]);
    const rows = comparisonCsv(comparison).split('\r\n');
    expect(rows[0]).toBe(
      'item,input,expected,exp_a status,exp_a output,exp_a correct,exp_a tokens,exp_a cost_usd,exp_a wall_ms,' +
        'exp_b status,exp_b output,exp_b correct,exp_b tokens,exp_b cost_usd,exp_b wall_ms',
    );
    expect(rows[1]).toBe(
      'i1,"{""q"":""Italy, capital?""}",Rome,completed,"\'=HYPERLINK(""x"")",false,2,0.001,12,completed,Rome,true,2,0.001,12',
    );
    expect(rows[2]).toBe('i2,"{""q"":""Italy, capital?""}",Rome,,,,,,,completed,Oslo,true,2,0.001,12');
  });

  it('refuses experiments of different datasets', () => {
    expect(() =>
      compareExperiments([
        { experiment: experiment('a'), items: [] },
        { experiment: experiment('b', 'other'), items: [] },
      ]),
    ).toThrow(/different datasets/);
  });
});
