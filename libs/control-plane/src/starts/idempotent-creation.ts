import { createHash } from 'node:crypto';
import { canonicalJson, isSpindleError, SpindleError } from '@spindle/contracts';
import { answerFailedCreation, answerHeldKey } from './held-key';
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

/** The run a keyed creation creates: its id and what the request answers. */
export interface CreationTarget<R> {
  runId: string;
  accepted: R;
}

/** Whether the run's `run.queued` is in its log (the only proof a run exists). */
export type RunQueuedProbe = (runId: string) => Promise<boolean>;

/**
 * Creates a run at most once per Idempotency-Key: a key seen with the same request answers what
 * it answered then, without creating anything; with a different request it is refused with
 * `idempotency_key_reused`. The key is claimed before `create` runs and given back when it fails
 * and the run is not in the log, so a retry after a failure creates the run. Without a key,
 * `create` just runs.
 *
 * A key whose run never reached the log (its gateway died between claiming the key and appending
 * `run.queued`, or is still between them) is not replayed — that would answer with a run that
 * never exists, 404 for the key's whole lifetime. The retry completes the creation instead:
 * `create` runs for the key's run id and stored answer (`held-key.ts` says why this is safe
 * against the original and against a concurrent retry). We chose completing over appending
 * first under a key-derived message id because the quota and the request's checks stay before
 * anything is written, and over taking the key over (a new run id) because a live original would
 * then create a second run.
 */
export async function createOnce<R>(
  keys: IdempotencyKeysRepository,
  runQueued: RunQueuedProbe,
  tenant: string,
  key: string | undefined,
  request: { hash: string } & CreationTarget<R>,
  create: (target: CreationTarget<R>) => Promise<void>,
): Promise<Created<R>> {
  let target: CreationTarget<R> = { runId: request.runId, accepted: request.accepted };
  if (key === undefined) {
    await create(target);
    return { accepted: target.accepted, replayed: false };
  }
  let held = await keys.find(tenant, key);
  // Another request may claim it between the two reads: then answer as it does.
  if (!held && !(await keys.claim(tenant, key, request.hash, request.runId, request.accepted))) held = await keys.find(tenant, key);
  if (held) {
    const sameRequest = held.requestHash === request.hash;
    const answer = answerHeldKey({ sameRequest, runQueued: sameRequest && (await runQueued(held.runId)) });
    if (answer === 'refuse') {
      throw new SpindleError(
        'idempotency_key_reused',
        'this Idempotency-Key was used with a different request; use a new key for a different request',
      );
    }
    target = { runId: held.runId, accepted: held.response as R };
    if (answer === 'replay') return { accepted: target.accepted, replayed: true };
  }
  try {
    await create(target);
  } catch (e) {
    const queued = await runQueued(target.runId).catch(() => undefined);
    const answer = answerFailedCreation({ runQueued: queued, lostAppend: lostTheAppend(e) });
    if (answer === 'replay') return { accepted: target.accepted, replayed: true };
    if (answer === 'release') await keys.release(tenant, key, target.runId);
    throw e;
  }
  return { accepted: target.accepted, replayed: false };
}

/** Another writer appended the run's first event before this one (`run_lost`, possibly wrapped). */
function lostTheAppend(e: unknown): boolean {
  for (let cause = e, depth = 0; cause !== undefined && depth < 5; cause = (cause as Error).cause, depth++) {
    if (isSpindleError(cause) && cause.code === 'run_lost') return true;
  }
  return false;
}
