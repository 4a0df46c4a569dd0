import { sha256 } from 'js-sha256';

/** How far a delivery's signed time may be from the receiver's clock before it is refused as a replay. */
export const WEBHOOK_SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * `Spindle-Signature` of a delivery, as Stripe does it: `t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<raw body>">`. The time is signed with the body, so a captured delivery cannot be replayed
 * later than the receiver's tolerance. Pure JavaScript (js-sha256), so the deliverer, the CLI's
 * receiver and a receiver in a browser or a worker sign and check it the same way.
 */
export function signWebhook(secret: string, rawBody: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${sha256.hmac(secret, `${unixSeconds}.${rawBody}`)}`;
}

/** Why a signature was refused, for a receiver's log. */
export type WebhookSignatureCheck =
  { ok: true; signedAt: number } | { ok: false; reason: 'missing' | 'malformed' | 'outside_tolerance' | 'mismatch' };

/**
 * What a receiver does with the header: is it this body's signature, made within `toleranceSeconds`
 * of `nowSeconds`? It takes Node's header value as it is: the header sent twice is malformed.
 */
export function checkWebhookSignature(
  secret: string,
  rawBody: string,
  header: string | readonly string[] | undefined,
  nowSeconds: number,
  toleranceSeconds = WEBHOOK_SIGNATURE_TOLERANCE_SECONDS,
): WebhookSignatureCheck {
  if (header === undefined || header === '') return { ok: false, reason: 'missing' };
  if (typeof header !== 'string') return { ok: false, reason: 'malformed' };
  const parts = new Map(header.split(',').map((p) => p.trim().split('=', 2) as [string, string | undefined]));
  const t = parts.get('t');
  const v1 = parts.get('v1');
  if (!t || !/^\d{1,12}$/.test(t) || !v1 || !/^[0-9a-f]{64}$/.test(v1)) return { ok: false, reason: 'malformed' };
  const signedAt = Number(t);
  if (Math.abs(nowSeconds - signedAt) > toleranceSeconds) return { ok: false, reason: 'outside_tolerance' };
  const expected = signWebhook(secret, rawBody, signedAt).slice(`t=${t},v1=`.length);
  return sameHex(expected, v1) ? { ok: true, signedAt } : { ok: false, reason: 'mismatch' };
}

/** `checkWebhookSignature(…).ok`, for a receiver that only needs yes or no. */
export const verifyWebhookSignature = (
  secret: string,
  rawBody: string,
  header: string | readonly string[] | undefined,
  nowSeconds: number,
  toleranceSeconds = WEBHOOK_SIGNATURE_TOLERANCE_SECONDS,
): boolean => checkWebhookSignature(secret, rawBody, header, nowSeconds, toleranceSeconds).ok;

/** Compares every character whatever differs first, so the time taken says nothing about the expected MAC. */
function sameHex(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
