import { describe, expect, it } from 'vitest';
import { parseScoreInput, scoreValueText } from './score-input';

describe('a score as typed', () => {
  it('reads numbers, yes/no and categories', () => {
    expect(['0.8', ' 3 ', 'true', 'Y', 'no', 'friendly', 'very good'].map(parseScoreInput)).toEqual([
      0.8,
      3,
      true,
      true,
      false,
      'friendly',
      'very good',
    ]);
  });

  it('takes nothing it could not keep', () => {
    expect(['', '  ', 'x'.repeat(101), 'Infinity'].map(parseScoreInput)).toEqual([undefined, undefined, undefined, 'Infinity']);
    expect(parseScoreInput('1e13')).toBeUndefined();
  });

  it('shows a boolean as yes or no', () => {
    expect([true, false, 0.5, 'ok'].map(scoreValueText)).toEqual(['yes', 'no', '0.5', 'ok']);
  });
});
