import { canonicalJson } from './canonical-json';

/** JSON.stringify of the value with its keys sorted: what the stored hashes were computed from. */
function sortedJson(value: unknown): string {
  const sortKeys = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sortKeys)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
          )
        : v;
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

describe('canonicalJson', () => {
  it('writes what JSON.stringify writes of the value with sorted keys (stored hashes depend on it)', () => {
    const samples: unknown[] = [
      null,
      0,
      -1.5,
      'x',
      true,
      [],
      {},
      [[]],
      [{}],
      { b: 1, a: [2, { d: null, c: 'é"\\' }] },
      { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }], edges: [] },
      { z: undefined, y: [undefined, 1] },
      [1, [2, [3, [4]]], 5],
    ];
    for (const value of samples) expect(canonicalJson(value)).toBe(sortedJson(value));
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson({ a: undefined, b: () => 1 })).toBe('{}');
  });

  it('sorts keys at every level', () => {
    expect(canonicalJson({ b: { d: 1, c: 2 }, a: 0 })).toBe('{"a":0,"b":{"c":2,"d":1}}');
  });

  it('handles nesting far past what recursion could', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? [deep] : { k: deep };
    const text = canonicalJson(deep);
    expect(text.startsWith('[{"k":[{"k":')).toBe(true);
    expect(text).toContain('[{"k":1}]');
    expect(text.endsWith('}]}]')).toBe(true);
    expect(text.length).toBe(50_000 * '[{"k":]}'.length + 1);
  });
});
