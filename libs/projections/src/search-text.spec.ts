import { joinSearchText, searchTextOf } from './search-text';

describe('searchTextOf', () => {
  it('keeps strings and numbers in document order and leaves keys, booleans and nulls out', () => {
    expect(searchTextOf({ question: 'Where is my parcel?', order: { id: 4411, items: ['lamp', true, null] } })).toBe(
      'Where is my parcel? 4411 lamp',
    );
    expect(searchTextOf('plain')).toBe('plain');
    expect(searchTextOf(undefined)).toBe('');
    expect(searchTextOf({ n: Number.NaN })).toBe('');
    expect(searchTextOf('a\u0000b')).toBe('a b');
  });

  it('stops at its budget, even inside one long string', () => {
    expect(searchTextOf(['abcdef', 'ghij'], 4)).toBe('abcd');
    expect(searchTextOf(['ab', 'cdefgh'], 6)).toBe('ab cde');
    expect(searchTextOf('x'.repeat(100_000)).length).toBe(64 * 1024);
  });

  it('walks a value nested far deeper than the call stack could', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(searchTextOf(deep)).toBe('bottom');
  });

  it('joins texts without stray spaces', () => {
    expect(joinSearchText(undefined, 'a')).toBe('a');
    expect(joinSearchText('a', '')).toBe('a');
    expect(joinSearchText('a', 'b')).toBe('a b');
  });
});
