import { nearest } from './vector-cache';

describe('nearest', () => {
  const ids = ['a', 'b', 'c', 'd'];
  const vectors = Float32Array.from([1, 0, 0.6, 0.8, 0, 1, -1, 0]);

  it('ranks every vector by its dot product with the query, best first, at most n', () => {
    expect(nearest({ ids, vectors }, 2, [1, 0], 3).map((h) => h.id)).toEqual(['a', 'b', 'c']);
    expect(nearest({ ids, vectors }, 2, [0, 1], 1)).toEqual([{ id: 'c', cosine: 1 }]);
  });

  it('keeps the best even when many vectors come after them (the working list is trimmed as it goes)', () => {
    const many = Array.from({ length: 1_000 }, (_, i) => `id${i}`);
    const v = new Float32Array(2_000);
    many.forEach((_, i) => v.set([Math.cos(i / 200), Math.sin(i / 200)], i * 2));
    expect(nearest({ ids: many, vectors: v }, 2, [1, 0], 3).map((h) => h.id)).toEqual(['id0', 'id1', 'id2']);
  });

  it('looks only at allowed ids when a filter gave them', () => {
    expect(nearest({ ids, vectors }, 2, [1, 0], 2, new Set(['c', 'd'])).map((h) => h.id)).toEqual(['c', 'd']);
  });
});
