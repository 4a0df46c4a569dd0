import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from 'jose';
import { IdentityProviderUnavailable, refused } from './oidc-refusal';
import { isTrustworthyIdpUrl, type OidcSettings } from './oidc-settings';

/** Bounds every request to the provider, so a hung provider cannot hang a request to the gateway. */
const fetchTimeoutMs = 5_000;

export interface KeySourceTuning {
  /** Least time between two JWKS refetches triggered by an unknown `kid` (jose's cooldown). */
  cooldownMs?: number;
}

/**
 * The provider's signing keys as a jose key resolver. jose caches the JWKS, refetches it when a
 * token names an unknown `kid` (at most once per cooldown) and when the cache is 10 minutes old.
 * The JWKS location is discovered once, on first use, so constructing a verifier does no I/O.
 */
export function oidcKeySource(settings: Pick<OidcSettings, 'issuer' | 'jwksUri'>, tuning: KeySourceTuning = {}): JWTVerifyGetKey {
  let remote: Promise<JWTVerifyGetKey> | undefined;
  const remoteKeys = (): Promise<JWTVerifyGetKey> => {
    if (remote === undefined) {
      remote = jwksUriOf(settings).then((uri) =>
        createRemoteJWKSet(new URL(uri), {
          timeoutDuration: fetchTimeoutMs,
          cooldownDuration: tuning.cooldownMs,
          [customFetch]: fetchFromProvider,
        }),
      );
      // A failed discovery is not cached: the next token tries again.
      remote.catch(() => (remote = undefined));
    }
    return remote;
  };
  return async (header, token) => (await remoteKeys())(header, token);
}

async function jwksUriOf(settings: Pick<OidcSettings, 'issuer' | 'jwksUri'>): Promise<string> {
  if (settings.jwksUri !== undefined) return settings.jwksUri;
  const url = `${settings.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  // Like jose's JWKS fetch, no redirects: one could lead off TLS.
  const response = await fetchFromProvider(url, {
    headers: { accept: 'application/json' },
    redirect: 'manual',
    signal: AbortSignal.timeout(fetchTimeoutMs),
  });
  const document: unknown = await response.json().catch((cause: unknown) => {
    throw new IdentityProviderUnavailable('the discovery document is not JSON', { cause });
  });
  const { issuer, jwks_uri: jwksUri } = (typeof document === 'object' && document !== null ? document : {}) as Record<string, unknown>;
  // OIDC Discovery §4.3: the document must name the issuer we trust, or it speaks for someone else.
  if (issuer !== settings.issuer) throw refused("the identity provider's discovery document names a different issuer");
  if (typeof jwksUri !== 'string' || !isTrustworthyIdpUrl(jwksUri)) {
    throw new IdentityProviderUnavailable('the discovery document has no usable jwks_uri');
  }
  return jwksUri;
}

/** fetch that reports every failure (network, timeout, status) as the provider being unavailable. */
async function fetchFromProvider(url: string, init: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (cause) {
    throw new IdentityProviderUnavailable(`could not reach ${url}`, { cause });
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new IdentityProviderUnavailable(`${url} answered HTTP ${response.status}`);
  }
  return response;
}
