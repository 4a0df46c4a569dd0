import { DEFAULT_TENANT, isScope, SCOPES, SpindleError, type Principal } from '@spindle/contracts';
import { API_KEY_PREFIX } from './api-keys/api-key-format';
import type { ApiKeyVerifier } from './api-keys/api-key-verifier';
import type { VerifiedToken } from './oidc/verified-token';
import { StreamTokenSigner, type MintedStreamToken } from './stream-tokens/stream-token';

/** Whatever checks an access token (the OIDC verifier, in production). */
export interface AccessTokenVerifier {
  verify(token: string): Promise<VerifiedToken>;
}

export interface AuthenticatorOptions {
  keys: ApiKeyVerifier;
  /** Absent when no identity provider is configured: only API keys are accepted. */
  accessTokens?: AccessTokenVerifier;
  /** A tenant named by a token must exist; its `operator` flag comes from here. */
  tenant(id: string): Promise<{ operator: boolean } | undefined>;
  /** `SPINDLE_AUTH=off` (local development only): every request is the default tenant's operator. */
  authOff?: boolean;
  /** Signs and checks the run-scoped stream tokens a page's `EventSource` carries in the URL (default: a random secret). */
  streamTokens?: StreamTokenSigner;
}

/** Who a request is when authentication is off. */
export const AUTH_OFF_PRINCIPAL: Principal = Object.freeze<Principal>({
  actor: { kind: 'system', id: 'auth-off', name: 'anonymous (SPINDLE_AUTH=off)' },
  tenant: DEFAULT_TENANT,
  scopes: new Set(SCOPES),
  operator: true,
  via: 'auth_off',
});

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Turns an `Authorization` header into a principal: `Bearer spk_…` is an API key, any other
 * bearer token an access token of the identity provider. Every refusal is `unauthenticated`
 * with a reason that never repeats the credential.
 */
export class Authenticator {
  private readonly streamTokens: StreamTokenSigner;

  constructor(private readonly opts: AuthenticatorOptions) {
    this.streamTokens = opts.streamTokens ?? new StreamTokenSigner();
  }

  async authenticate(authorization: string | undefined): Promise<Principal> {
    if (this.opts.authOff) return AUTH_OFF_PRINCIPAL;
    if (authorization === undefined || authorization === '') {
      throw new SpindleError('unauthenticated', 'no credentials: send Authorization: Bearer <API key or access token>');
    }
    const token = BEARER.exec(authorization)?.[1];
    if (token === undefined) throw new SpindleError('unauthenticated', 'the Authorization header must be "Bearer <token>"');
    if (token.startsWith(API_KEY_PREFIX)) return this.opts.keys.verify(token);
    if (!this.opts.accessTokens) throw new SpindleError('unauthenticated', 'this gateway accepts API keys only (spk_…)');
    return this.fromAccessToken(await this.opts.accessTokens.verify(token));
  }

  /**
   * A stream token (`sst_…`) presented on the stream of run `runId`: the principal of the key that
   * minted it (which must still stand), able to read that one run and nothing else. A token that is
   * not valid is `unauthenticated`; a valid one for another run is `forbidden`.
   */
  async authenticateStreamToken(token: string, runId: string): Promise<Principal> {
    if (this.opts.authOff) return AUTH_OFF_PRINCIPAL;
    const claims = this.streamTokens.verify(token);
    const minter = await this.opts.keys.verifyMinter(claims.key);
    if (minter.tenant !== claims.tenant) throw new SpindleError('unauthenticated', 'the stream token names another tenant than its key');
    if (claims.run !== runId) throw new SpindleError('forbidden', 'this stream token is for another run');
    return { ...minter, scopes: new Set([...minter.scopes].filter((s) => s === 'runs:read')) };
  }

  /** A stream token for `runId`, minted with the caller's API key; `ttlSeconds` as `streamTokenBodySchema` bounds it. */
  mintStreamToken(caller: Principal, runId: string, ttlSeconds: number): MintedStreamToken {
    if (caller.via !== 'api_key') {
      throw new SpindleError(
        'forbidden',
        caller.via === 'auth_off'
          ? 'with SPINDLE_AUTH=off a stream needs no token: follow it without one'
          : 'stream tokens are minted with an API key (spk_…); it is the key whose revocation ends the token',
      );
    }
    return this.streamTokens.mint({ tenant: caller.tenant, run: runId, key: caller.actor.id }, ttlSeconds);
  }

  private async fromAccessToken(token: VerifiedToken): Promise<Principal> {
    const tenant = await this.opts.tenant(token.tenant);
    if (!tenant)
      throw new SpindleError(
        'unauthenticated',
        `the token names tenant ${JSON.stringify(token.tenant.slice(0, 64))}, which does not exist`,
      );
    return {
      actor: { kind: 'user', id: token.subject, name: token.name },
      tenant: token.tenant,
      scopes: new Set(token.scopes.filter(isScope)),
      operator: tenant.operator,
      via: 'oidc',
      expiresAt: token.expiresAt,
    };
  }
}
