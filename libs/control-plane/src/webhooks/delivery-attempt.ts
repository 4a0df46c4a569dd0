import { backoffDelay } from '@spindle/contracts';

/** Where a webhook delivery stands after an attempt. */
export type DeliveryOutcome = { status: 'delivered' } | { status: 'pending'; retryAt: Date } | { status: 'dead' };

export interface DeliveryRetryPolicy {
  /** The first retry's delay; each later one doubles it, up to `MAX_RETRY_DELAY_MS`. */
  readonly retryBaseMs: number;
  /** How long after its creation a delivery is still retried. */
  readonly retryForMs: number;
}

export const MAX_RETRY_DELAY_MS = 3_600_000;

/**
 * The next step of a delivery after attempt number `attempt` answered `statusCode` (`null`: no
 * answer): a 2xx delivers it; anything else retries it later (doubling, ± 20 %), unless that
 * retry would come past its time, and then it is dead.
 */
export function nextDeliveryOutcome(
  answer: { statusCode: number | null; attempt: number; createdAt: Date; now: Date },
  policy: DeliveryRetryPolicy,
  random: () => number = Math.random,
): DeliveryOutcome {
  if (answer.statusCode !== null && answer.statusCode >= 200 && answer.statusCode < 300) return { status: 'delivered' };
  const delay = backoffDelay(answer.attempt, { initialMs: policy.retryBaseMs, maxMs: MAX_RETRY_DELAY_MS, jitter: 0.2 }, random);
  const retryAt = new Date(answer.now.getTime() + delay);
  return retryAt.getTime() - answer.createdAt.getTime() > policy.retryForMs ? { status: 'dead' } : { status: 'pending', retryAt };
}
