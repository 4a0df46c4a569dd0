import { MAX_RETRY_DELAY_MS, nextDeliveryOutcome, type DeliveryOutcome } from './delivery-attempt';

const createdAt = new Date('2026-01-01T00:00:00Z');
const policy = { retryBaseMs: 1_000, retryForMs: 24 * 3_600_000 };
const at = (ms: number) => new Date(createdAt.getTime() + ms);
/** The middle of the jitter: the formula's own delay. */
const even = () => 0.5;

describe('nextDeliveryOutcome', () => {
  it.each<[number | null, number, number, DeliveryOutcome]>([
    [200, 1, 0, { status: 'delivered' }],
    [204, 7, 3_600_000, { status: 'delivered' }],
    [299, 1, 0, { status: 'delivered' }],
    [300, 1, 0, { status: 'pending', retryAt: at(1_000) }],
    [404, 1, 0, { status: 'pending', retryAt: at(1_000) }],
    [500, 3, 10_000, { status: 'pending', retryAt: at(14_000) }],
    [null, 2, 5_000, { status: 'pending', retryAt: at(7_000) }],
    [199, 1, 0, { status: 'pending', retryAt: at(1_000) }],
    [503, 40, 3_600_000, { status: 'pending', retryAt: at(3_600_000 + MAX_RETRY_DELAY_MS) }],
    [503, 40, 23 * 3_600_000 + 1, { status: 'dead' }],
  ])('answer %s at attempt %i, %i ms after creation', (statusCode, attempt, sinceMs, outcome) => {
    expect(nextDeliveryOutcome({ statusCode, attempt, createdAt, now: at(sinceMs) }, policy, even)).toEqual(outcome);
  });

  it('is dead exactly when the retry would come past its time', () => {
    const retryFor = { ...policy, retryForMs: 10_000 };
    expect(nextDeliveryOutcome({ statusCode: 500, attempt: 1, createdAt, now: at(9_000) }, retryFor, even)).toEqual({
      status: 'pending',
      retryAt: at(10_000),
    });
    expect(nextDeliveryOutcome({ statusCode: 500, attempt: 1, createdAt, now: at(9_001) }, retryFor, even)).toEqual({ status: 'dead' });
  });

  it('spreads retries by ± 20 %', () => {
    const retryAt = (random: number) =>
      (nextDeliveryOutcome({ statusCode: 500, attempt: 1, createdAt, now: createdAt }, policy, () => random) as { retryAt: Date }).retryAt;
    expect([retryAt(0), retryAt(1)]).toEqual([at(800), at(1_200)]);
  });
});
