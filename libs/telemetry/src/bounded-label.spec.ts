import { boundedLabel, OVERFLOW_LABEL } from './bounded-label';

describe('boundedLabel', () => {
  it('keeps the first distinct values and folds the rest into one', () => {
    const label = boundedLabel(2);
    expect(['a', 'b', 'a', 'c', 'd', 'b'].map(label)).toEqual(['a', 'b', 'a', OVERFLOW_LABEL, OVERFLOW_LABEL, 'b']);
  });

  it('names an absent or empty value and cuts a long one', () => {
    const label = boundedLabel(10, 4);
    expect([undefined, '', 'abcdefgh'].map(label)).toEqual(['none', 'none', 'abcd']);
  });
});
