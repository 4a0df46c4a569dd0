import { nestsDeeperThan } from './json-depth';

const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`;

describe('nestsDeeperThan', () => {
  it('counts arrays and objects as levels and refuses one level past the limit', () => {
    expect(nestsDeeperThan('1', 0)).toBe(false);
    expect(nestsDeeperThan('{}', 0)).toBe(true);
    expect(nestsDeeperThan('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(nestsDeeperThan('{"a":[{"b":1}]}', 2)).toBe(true);
    expect(nestsDeeperThan(nested(64), 64)).toBe(false);
    expect(nestsDeeperThan(nested(65), 64)).toBe(true);
    expect(nestsDeeperThan(nested(65, '{"a":', '}'), 64)).toBe(true);
  });

  it('measures the deepest point, not the number of siblings', () => {
    expect(nestsDeeperThan(`[${Array.from({ length: 1000 }, () => '[1]').join(',')}]`, 2)).toBe(false);
  });

  it('ignores brackets inside strings, including after escaped quotes and backslashes', () => {
    expect(nestsDeeperThan(JSON.stringify({ text: '[[[[[[{{{{{{' }), 1)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ text: 'say "[[[[[" now' }), 1)).toBe(false);
    // A string ending in a backslash: `\\` is one escaped backslash, the quote after it closes the string.
    expect(nestsDeeperThan(JSON.stringify(['a\\', [[1]]]), 2)).toBe(true);
    expect(nestsDeeperThan(JSON.stringify(['a\\', '[[[']), 1)).toBe(false);
  });

  it('scans text far deeper than the stack would allow, in one pass', () => {
    expect(nestsDeeperThan(nested(1_000_000), 64)).toBe(true);
    expect(nestsDeeperThan(`"${'['.repeat(1_000_000)}"`, 64)).toBe(false);
  });
});
