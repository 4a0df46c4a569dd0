import { backoffDelay, sleep } from './backoff';

describe('backoffDelay', () => {
  const policy = { initialMs: 100, maxMs: 1_000 };

  it.each([
    [1, 100],
    [2, 200],
    [3, 400],
    [4, 800],
    [5, 1_000],
    [40, 1_000],
  ])('doubles from the first wait up to the cap: attempt %i waits %i ms', (attempt, ms) => {
    expect(backoffDelay(attempt, policy)).toBe(ms);
  });

  it('treats an attempt below 1 as the first', () => {
    expect(backoffDelay(0, policy)).toBe(100);
  });

  it.each([
    [0, 800],
    [0.5, 1_000],
    [1, 1_200],
  ])('spreads each wait by the jitter (random %d → %i ms)', (random, ms) => {
    expect(backoffDelay(5, { ...policy, jitter: 0.2 }, () => random)).toBe(ms);
  });
});

describe('sleep', () => {
  it('resolves after its time', async () => {
    await expect(sleep(5)).resolves.toBeUndefined();
  });

  it('resolves at once on an aborted signal, and when the signal aborts meanwhile, without rejecting', async () => {
    const aborted = new AbortController();
    aborted.abort(new Error('gone'));
    await expect(sleep(60_000, aborted.signal)).resolves.toBeUndefined();
    const later = new AbortController();
    const waiting = sleep(60_000, later.signal);
    later.abort();
    await expect(waiting).resolves.toBeUndefined();
  });
});
