import { randomHexId } from './random-ids';

describe('randomHexId', () => {
  it('gives ids of the asked length that do not repeat across pool refills', () => {
    const ids = Array.from({ length: 2_000 }, () => randomHexId(8));
    expect(ids.every((id) => /^[0-9a-f]{16}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(randomHexId(6)).toMatch(/^[0-9a-f]{12}$/);
    expect(randomHexId(5_000)).toHaveLength(10_000);
  });
});
