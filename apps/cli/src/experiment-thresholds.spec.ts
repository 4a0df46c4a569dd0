import { collectThreshold, summaryLines, thresholdFailures } from './experiment-thresholds';

const summary = {
  items: 4,
  byStatus: { completed: 3, failed: 1 },
  costUsd: 0.0123,
  totalTokens: 80,
  wallMsP50: 41.6,
  scores: { correct: { count: 3, mean: 2 / 3 }, tone: { count: 3, mean: null } },
};

describe('experiment thresholds', () => {
  it('reads repeated --fail-under name=value', () => {
    expect(collectThreshold('tone.ok=1', collectThreshold('correct=0.9'))).toEqual([
      { name: 'correct', min: 0.9 },
      { name: 'tone.ok', min: 1 },
    ]);
    for (const bad of ['correct', 'correct=', 'Correct=1', 'correct=high']) expect(() => collectThreshold(bad)).toThrow(/score name/);
  });

  it('fails a mean below its threshold and a score no item has as a number, and passes one at it', () => {
    expect(thresholdFailures(summary, [{ name: 'correct', min: 0.9 }])).toEqual(['correct: mean 0.6667 < 0.9 (over 3 item(s))']);
    expect(thresholdFailures(summary, [{ name: 'correct', min: 2 / 3 }])).toEqual([]);
    expect(
      thresholdFailures(summary, [
        { name: 'tone', min: 0 },
        { name: 'missing', min: 0 },
      ]),
    ).toEqual([
      'tone: no item has a numeric or boolean score of this name',
      'missing: no item has a numeric or boolean score of this name',
    ]);
  });

  it('says the summary in lines', () => {
    expect(summaryLines(summary)).toEqual([
      '4 item(s): 3 completed, 1 failed; $0.0123, 80 tokens, p50 wall 42 ms',
      '  correct: mean 0.6667 over 3',
      '  tone: mean - over 3',
    ]);
  });
});
