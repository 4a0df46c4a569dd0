import { canonicalJson } from './canonical-json';

/** The recursive definition the stored hashes were computed with. */
function recursiveCanonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(recursiveCanonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${recursiveCanonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

describe('canonicalJson', () => {
  it('writes the same text as the recursive definition (stored hashes depend on it)', () => {
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
    for (const value of samples) expect(canonicalJson(value)).toBe(recursiveCanonicalJson(value));
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
