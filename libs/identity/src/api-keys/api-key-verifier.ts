import { SpindleError, type Principal, type Scope } from '@spindle/contracts';
import { parseApiKey, secretMatches } from './api-key-format';

/** A key as stored: never the secret, only its hash. */
export interface StoredApiKey {
  id: string;
  name: string;
  tenant: string;
  /** The key's tenant runs the platform. */
  operator: boolean;
  scopes: readonly Scope[];
  secretHash: string;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export interface ApiKeyVerifierOptions {
  /** Finds a stored key by id (any tenant), or undefined. */
  find(id: string): Promise<StoredApiKey | undefined>;
  /** Called at most once per `touchEveryMs` per key: records `lastUsedAt`. */
  touch(id: string, at: Date): void;
  /** How long a looked-up key is trusted before it is read again (a revocation on another gateway takes this long). */
  cacheMs?: number;
  touchEveryMs?: number;
  now?: () => number;
  /** Most keys kept in memory. */
  maxCached?: number;
  /**
   * `find` failed because the store did not answer (Postgres down or failing over): a key looked
   * up before still stands, for at most `outageGraceMs` past its cache time, so what needs no
   * database (a run's events, its stream) keeps working through the outage.
   */
  isOutage?: (e: unknown) => boolean;
  /** Default 10 minutes. A revocation written just before the outage takes at most this long, too. */
  outageGraceMs?: number;
}

const UNAUTHENTICATED = 'the API key is not valid';

/**
 * Verifies `spk_…` keys: shape, a stored key with that id, the secret's hash, not revoked, not
 * expired. Stored keys are cached briefly so a request costs a hash, not a database round trip;
 * `forget` drops one at once (this gateway revoked it).
 */
export class ApiKeyVerifier {
  private readonly cache = new Map<string, { key: StoredApiKey | undefined; until: number }>();
  private readonly touched = new Map<string, number>();
  private readonly cacheMs: number;
  private readonly touchEveryMs: number;
  private readonly maxCached: number;
  private readonly now: () => number;

  constructor(private readonly opts: ApiKeyVerifierOptions) {
    this.cacheMs = opts.cacheMs ?? 5_000;
    this.touchEveryMs = opts.touchEveryMs ?? 60_000;
    this.maxCached = opts.maxCached ?? 10_000;
    this.now = opts.now ?? Date.now;
  }

  async verify(token: string): Promise<Principal> {
    const parsed = parseApiKey(token);
    if (!parsed) throw new SpindleError('unauthenticated', 'the API key is malformed');
    const key = await this.lookup(parsed.id);
    // One message for unknown and wrong secret alike: neither says whether the id exists.
    if (!key || !secretMatches(parsed.secret, key.secretHash)) throw new SpindleError('unauthenticated', UNAUTHENTICATED);
    return this.principalOf(key);
  }

  /**
   * The principal of the key with this id, when it still stands (not revoked, not expired): for a
   * credential the key minted (a stream token), which proved the secret when it was minted.
   */
  async verifyMinter(id: string): Promise<Principal> {
    const key = await this.lookup(id);
    if (!key) throw new SpindleError('unauthenticated', 'the API key that minted this token no longer exists');
    return this.principalOf(key);
  }

  private principalOf(key: StoredApiKey): Principal {
    if (key.revokedAt) throw new SpindleError('unauthenticated', 'the API key was revoked');
    if (key.expiresAt && key.expiresAt.getTime() <= this.now()) throw new SpindleError('unauthenticated', 'the API key has expired');
    this.noteUse(key.id);
    return {
      actor: { kind: 'key', id: key.id, name: key.name },
      tenant: key.tenant,
      scopes: new Set(key.scopes),
      operator: key.operator,
      via: 'api_key',
      ...(key.expiresAt && { expiresAt: key.expiresAt }),
    };
  }

  forget(id: string): void {
    this.cache.delete(id);
  }

  private async lookup(id: string): Promise<StoredApiKey | undefined> {
    const now = this.now();
    const cached = this.cache.get(id);
    if (cached && cached.until > now) return cached.key;
    let key: StoredApiKey | undefined;
    try {
      key = await this.opts.find(id);
    } catch (e) {
      // The answer kept stays as old as it was: the grace does not grow with each request.
      if (cached && cached.until + (this.opts.outageGraceMs ?? 600_000) > now && this.opts.isOutage?.(e)) return cached.key;
      throw e;
    }
    if (this.cache.size >= this.maxCached) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(id, { key, until: now + this.cacheMs });
    return key;
  }

  private noteUse(id: string): void {
    const now = this.now();
    if ((this.touched.get(id) ?? 0) + this.touchEveryMs > now) return;
    if (this.touched.size >= this.maxCached) this.touched.clear();
    this.touched.set(id, now);
    this.opts.touch(id, new Date(now));
  }
}
