import { createHash } from 'node:crypto';
import { canonicalJson, SpindleError } from '@spindle/contracts';
import type { IdempotencyKeysRepository } from './idempotency-keys.repository';

/** What a creating request answered, and whether this answer is the stored one of an earlier request. */
export interface Created<R> {
  accepted: R;
  replayed: boolean;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The Idempotency-Key header as given, refused when it is not 1–255 visible ASCII characters. */
export function checkIdempotencyKey(key: string | undefined): string | undefined {
  if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
    throw new SpindleError('validation_failed', 'Idempotency-Key must be 1-255 visible ASCII characters', {
      issues: [{ field: 'Idempotency-Key', message: 'invalid' }],
    });
  }
  return key;
}

/**
 * One hash per request: what it does and its body, so a key names exactly one request. A start's
 * action is the workflow name (as keys stored before forks took keys were hashed); a fork's is
 * `fork:<run>`, which no workflow name can be.
 */
export const requestHash = (action: string, body: unknown): string =>
  createHash('sha256')
    .update(`${action}\n${canonicalJson(body)}`)
    .digest('hex');

/**
 * Creates a run at most once per Idempotency-Key: a key seen with the same request answers what
 * it answered then, without creating anything; with a different request it is refused with
 * `idempotency_key_reused`. The key is claimed before `create` runs and given back when it fails,
 * so a retry after a failure creates the run. Without a key, `create` just runs.
 */
export async function createOnce<R>(
  keys: IdempotencyKeysRepository,
  tenant: string,
  key: string | undefined,
  request: { hash: string; runId: string; accepted: R },
  create: () => Promise<void>,
): Promise<Created<R>> {
  if (key !== undefined) {
    const held = await heldBy<R>(keys, tenant, key, request.hash);
    if (held) return held;
    if (!(await keys.claim(tenant, key, request.hash, request.runId, request.accepted))) {
      // Another request claimed it between the two reads: answer as it did.
      const raced = await heldBy<R>(keys, tenant, key, request.hash);
      if (raced) return raced;
    }
  }
  try {
    await create();
  } catch (e) {
    if (key !== undefined) await keys.release(tenant, key, request.runId);
    throw e;
  }
  return { accepted: request.accepted, replayed: false };
}

async function heldBy<R>(keys: IdempotencyKeysRepository, tenant: string, key: string, hash: string): Promise<Created<R> | undefined> {
  const stored = await keys.find(tenant, key);
  if (!stored) return undefined;
  if (stored.requestHash !== hash) {
    throw new SpindleError(
      'idempotency_key_reused',
      'this Idempotency-Key was used with a different request; use a new key for a different request',
    );
  }
  return { accepted: stored.response as R, replayed: true };
}
