import { coalescedWrites } from './coalesced-writes';

describe('coalescedWrites', () => {
  /** A write that records what it was given and waits until the test lets it finish. */
  function heldWrites() {
    const batches: number[][] = [];
    const release: Array<(error?: Error) => void> = [];
    const write = (items: number[]) =>
      new Promise<void>((resolve, reject) => {
        batches.push(items);
        release.push((error) => (error ? reject(error) : resolve()));
      });
    return { batches, release, write };
  }

  it('writes the first item at once and what arrives meanwhile together in the next write', async () => {
    const { batches, release, write } = heldWrites();
    const append = coalescedWrites(write);
    const settled = [1, 2, 3, 4].map((n) => append(n));
    expect(batches).toEqual([[1]]);
    release[0]!();
    await settled[0];
    await new Promise(setImmediate);
    expect(batches).toEqual([[1], [2, 3, 4]]);
    release[1]!();
    await Promise.all(settled);
    // Idle again: the next item goes alone, at once.
    const fifth = append(5);
    expect(batches).toEqual([[1], [2, 3, 4], [5]]);
    release[2]!();
    await fifth;
  });

  it('fails only the items the failed write carried, and goes on with the rest', async () => {
    const { batches, release, write } = heldWrites();
    const append = coalescedWrites(write);
    const first = append(1);
    const second = append(2);
    release[0]!(new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    await new Promise(setImmediate);
    expect(batches).toEqual([[1], [2]]);
    release[1]!();
    await expect(second).resolves.toBeUndefined();
  });
});
