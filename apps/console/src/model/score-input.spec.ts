import { describe, expect, it } from 'vitest';
import { parseScoreInput, scoreGiver, scoreValueText } from './score-input';

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

  it('names who gave a score: a person or key by name, an evaluator with its version', () => {
    const person = { by: { kind: 'key' as const, id: 'k1', name: 'bootstrap admin' }, evaluator: null };
    const evaluator = {
      by: { kind: 'system' as const, id: 'evaluator', name: 'evaluator' },
      evaluator: { name: 'exact_match', version: 'evaluated v1' },
    };
    expect([scoreGiver(person), scoreGiver(evaluator)]).toEqual(['bootstrap admin', 'exact_match (evaluated v1)']);
  });
});
