import { SCOPES, type Principal } from '@spindle/contracts';
import { generateApiKey, parseApiKey, secretMatches } from './api-key-format';
import { ApiKeyVerifier, type StoredApiKey } from './api-key-verifier';

function storeOf(keys: StoredApiKey[]) {
  const lookups: string[] = [];
  const touched: string[] = [];
  return {
    lookups,
    touched,
    find: async (id: string) => {
      lookups.push(id);
      return keys.find((k) => k.id === id);
    },
    touch: (id: string) => void touched.push(id),
  };
}

function stored(made: ReturnType<typeof generateApiKey>, extra: Partial<StoredApiKey> = {}): StoredApiKey {
  return {
    id: made.id,
    name: 'ci',
    tenant: 'acme',
    operator: false,
    scopes: ['runs:read'],
    secretHash: made.secretHash,
    expiresAt: null,
    revokedAt: null,
    ...extra,
  };
}

const refusal = (reason: RegExp) => expect.objectContaining({ code: 'unauthenticated', message: expect.stringMatching(reason) });

describe('API keys', () => {
  it('are spk_<id>_<secret>, parse back, and match only their own secret', () => {
    const made = generateApiKey();
    expect(made.token).toMatch(/^spk_[a-z0-9]{16}_[A-Za-z0-9_-]{43}$/);
    const parsed = parseApiKey(made.token);
    expect(parsed?.id).toBe(made.id);
    expect(secretMatches(parsed!.secret, made.secretHash)).toBe(true);
    expect(secretMatches(parseApiKey(generateApiKey().token)!.secret, made.secretHash)).toBe(false);
    for (const bad of ['', 'spk_', `${made.token}x`, made.token.replace('spk_', 'sk_'), `spk_${made.id.toUpperCase()}_${'a'.repeat(43)}`]) {
      expect(parseApiKey(bad)).toBeUndefined();
    }
  });

  it('verify to the principal of their tenant and scopes, and note a use at most once a minute', async () => {
    const made = generateApiKey();
    const store = storeOf([stored(made, { scopes: [...SCOPES], operator: true })]);
    let now = 1_000_000;
    const verifier = new ApiKeyVerifier({ ...store, now: () => now });
    const principal: Principal = await verifier.verify(made.token);
    expect(principal).toMatchObject({ actor: { kind: 'key', id: made.id, name: 'ci' }, tenant: 'acme', operator: true, via: 'api_key' });
    expect([...principal.scopes]).toEqual([...SCOPES]);
    now += 1_000;
    await verifier.verify(made.token);
    now += 60_000;
    await verifier.verify(made.token);
    expect(store.touched).toEqual([made.id, made.id]);
  });

  it('are refused when malformed, unknown, with a wrong secret, revoked or expired; never naming the secret', async () => {
    const good = generateApiKey();
    const revoked = generateApiKey();
    const expired = generateApiKey();
    const now = Date.parse('2026-11-30T12:00:00Z');
    const verifier = new ApiKeyVerifier({
      ...storeOf([stored(good), stored(revoked, { revokedAt: new Date(now - 1) }), stored(expired, { expiresAt: new Date(now) })]),
      now: () => now,
    });
    const wrongSecret = `spk_${good.id}_${parseApiKey(generateApiKey().token)!.secret}`;
    await expect(verifier.verify('spk_nope')).rejects.toEqual(refusal(/malformed/));
    await expect(verifier.verify(generateApiKey().token)).rejects.toEqual(refusal(/not valid/));
    await expect(verifier.verify(wrongSecret)).rejects.toEqual(refusal(/not valid/));
    await expect(verifier.verify(revoked.token)).rejects.toEqual(refusal(/revoked/));
    await expect(verifier.verify(expired.token)).rejects.toEqual(refusal(/expired/));
    for (const token of [wrongSecret, revoked.token, expired.token]) {
      const error = await verifier.verify(token).catch((e: unknown) => e);
      expect(JSON.stringify(error) + String(error)).not.toContain(parseApiKey(token)!.secret);
    }
  });

  it('are looked up once per cache period, and again at once after forget (a revocation here)', async () => {
    const made = generateApiKey();
    const store = storeOf([stored(made)]);
    let now = 0;
    const verifier = new ApiKeyVerifier({ ...store, cacheMs: 5_000, now: () => now });
    await verifier.verify(made.token);
    await verifier.verify(made.token);
    expect(store.lookups).toHaveLength(1);
    now += 5_001;
    await verifier.verify(made.token);
    expect(store.lookups).toHaveLength(2);
    verifier.forget(made.id);
    await verifier.verify(made.token);
    expect(store.lookups).toHaveLength(3);
  });

  it('stand through a store outage for the grace period, as old as they were, and not for other failures', async () => {
    const made = generateApiKey();
    const other = generateApiKey();
    let failure: Error | undefined;
    const store = storeOf([stored(made), stored(other)]);
    const find = (id: string) => (failure ? Promise.reject(failure) : store.find(id));
    let now = 0;
    const verifier = new ApiKeyVerifier({
      ...store,
      find,
      cacheMs: 5_000,
      outageGraceMs: 60_000,
      isOutage: (e) => (e as Error).message === 'database down',
      now: () => now,
    });
    await verifier.verify(made.token);
    failure = new Error('database down');
    now += 30_000;
    await expect(verifier.verify(made.token)).resolves.toMatchObject({ tenant: 'acme' });
    // Never looked up before the outage: nothing to stand on.
    await expect(verifier.verify(other.token)).rejects.toThrow('database down');
    // Each use during the outage did not renew the grace: it ends 60 s after the cached answer's time.
    now = 5_000 + 60_000;
    await expect(verifier.verify(made.token)).rejects.toThrow('database down');
    // Within the grace, a failure that is no outage is not hidden.
    failure = new Error('a bug');
    now = 10_000;
    await expect(verifier.verify(made.token)).rejects.toThrow('a bug');
  });
});
