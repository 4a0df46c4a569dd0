import { envOptional, envText, parseEnv, type Env } from '@spindle/contracts';
import { z } from 'zod';

/** How the gateway trusts access tokens from one OpenID Connect provider. */
export interface OidcSettings {
  /** Exact `iss` value; discovery is read from `${issuer}/.well-known/openid-configuration`. */
  issuer: string;
  /** The token's `aud` must be, or contain, this value. */
  audience: string;
  /** Claim holding the tenant id (a non-empty string). */
  tenantClaim: string;
  /** Claim holding scopes: a space-separated string or an array of strings. */
  scopesClaim: string;
  /** Claim holding a display name; falls back to `preferred_username`, `email`, then `sub`. */
  nameClaim: string;
  /** Allowed clock skew for `exp` and `nbf`, in seconds. */
  clockToleranceSec: number;
  /** Where the signing keys are; discovered from the issuer when absent. */
  jwksUri?: string;
}

export const oidcDefaults = {
  tenantClaim: 'spindle_tenant',
  scopesClaim: 'scope',
  nameClaim: 'name',
  clockToleranceSec: 5,
} as const;

/** Longest clock skew we accept configuring: beyond this, expiry means little. */
const maxClockToleranceSec = 300;

const TOLERANCE = `must be a whole number of seconds from 0 to ${maxClockToleranceSec}`;

const envSchema = z.object({
  SPINDLE_OIDC_ISSUER: envText(),
  SPINDLE_OIDC_AUDIENCE: envText(),
  SPINDLE_OIDC_JWKS_URI: envText(),
  SPINDLE_OIDC_TENANT_CLAIM: envText(),
  SPINDLE_OIDC_SCOPES_CLAIM: envText(),
  SPINDLE_OIDC_NAME_CLAIM: envText(),
  SPINDLE_OIDC_CLOCK_TOLERANCE_SEC: envOptional(
    z.coerce
      .number({ error: TOLERANCE })
      .int({ error: TOLERANCE })
      .min(0, { error: TOLERANCE })
      .max(maxClockToleranceSec, { error: TOLERANCE }),
  ).transform((v) => v ?? oidcDefaults.clockToleranceSec),
});

/**
 * Reads the `SPINDLE_OIDC_*` variables. Returns undefined when OIDC is off (no issuer);
 * throws when it is on but misconfigured, so a bad deployment fails at start, not at the first login.
 */
export function parseOidcSettings(env: Env, service = 'gateway'): OidcSettings | undefined {
  const e = parseEnv(envSchema, env, service);
  const issuer = e.SPINDLE_OIDC_ISSUER;
  if (issuer === undefined) return undefined;
  assertIdpUrl('SPINDLE_OIDC_ISSUER', issuer);
  // OIDC issuers never carry a query; one here is a copy-paste slip (a login URL, not the issuer).
  if (issuer.includes('?')) throw new Error(`SPINDLE_OIDC_ISSUER must not contain a query, got "${issuer}"`);
  const audience = e.SPINDLE_OIDC_AUDIENCE;
  if (audience === undefined) throw new Error('SPINDLE_OIDC_AUDIENCE must be set when SPINDLE_OIDC_ISSUER is set');
  const jwksUri = e.SPINDLE_OIDC_JWKS_URI;
  if (jwksUri !== undefined) assertIdpUrl('SPINDLE_OIDC_JWKS_URI', jwksUri);
  return Object.freeze({
    issuer,
    audience,
    tenantClaim: e.SPINDLE_OIDC_TENANT_CLAIM ?? oidcDefaults.tenantClaim,
    scopesClaim: e.SPINDLE_OIDC_SCOPES_CLAIM ?? oidcDefaults.scopesClaim,
    nameClaim: e.SPINDLE_OIDC_NAME_CLAIM ?? oidcDefaults.nameClaim,
    clockToleranceSec: e.SPINDLE_OIDC_CLOCK_TOLERANCE_SEC,
    ...(jwksUri === undefined ? {} : { jwksUri }),
  });
}

/**
 * Keys and discovery must come over TLS, or a network attacker could swap the keys.
 * Plain http is allowed only for a provider on this machine (development and tests).
 */
export function isTrustworthyIdpUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.hash !== '' || url.username !== '' || url.password !== '') return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '127.0.0.1');
}

function assertIdpUrl(name: string, value: string): void {
  if (!isTrustworthyIdpUrl(value)) {
    throw new Error(`${name} must be an https URL without fragment or credentials (http only for localhost or 127.0.0.1), got "${value}"`);
  }
}
