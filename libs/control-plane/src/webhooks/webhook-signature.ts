import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new subscription's signing secret. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

/**
 * `Spindle-Signature` of a delivery, as Stripe does it: `t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<raw body>">`. The time is signed with the body, so a captured delivery cannot be replayed
 * later than the receiver's tolerance.
 */
export function signWebhook(secret: string, rawBody: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${rawBody}`).digest('hex')}`;
}

/** What a receiver does with the header: true when it is this body's signature, made within `toleranceSeconds` of `now`. */
export function verifyWebhookSignature(
  secret: string,
  rawBody: string,
  header: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const parts = new Map(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds || !/^[0-9a-f]{64}$/.test(v1)) return false;
  const expected = signWebhook(secret, rawBody, t).split('v1=')[1];
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(v1, 'hex'));
}
