import { candidateCount, hybridScore, textQuery } from './hybrid-score';

describe('hybrid score', () => {
  it('weighs vectors over words, clamps each side, and stays within 0..1', () => {
    expect(hybridScore(1, 1)).toBeCloseTo(1);
    expect(hybridScore(-0.4, 0)).toBe(0);
    expect(hybridScore(0.5, 0)).toBeCloseTo(0.35);
    expect(hybridScore(0, 2)).toBeCloseTo(0.3);
    expect(hybridScore(0.6, 0.1)).toBeGreaterThan(hybridScore(0.5, 0.3));
  });

  it("ORs a question's distinct words; nothing for a query without words", () => {
    expect(textQuery('How long do refunds take? Refunds!')).toBe('how | long | do | refunds | take');
    expect(textQuery("'); drop table x; --")).toBe('drop | table | x');
    expect(textQuery('?!')).toBeNull();
  });

  it('takes at least 50 and at most 500 candidates', () => {
    expect([candidateCount(1), candidateCount(20), candidateCount(50)]).toEqual([50, 200, 500]);
  });
});
