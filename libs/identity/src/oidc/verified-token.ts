import type { JWTPayload } from 'jose';
import { refused } from './oidc-refusal';
import type { OidcSettings } from './oidc-settings';

/** What a verified access token says about its bearer; scopes are the provider's, not yet Spindle's. */
export interface VerifiedToken {
  subject: string;
  name: string;
  tenant: string;
  scopes: string[];
  expiresAt: Date;
  issuer: string;
}

type ClaimSettings = Pick<OidcSettings, 'tenantClaim' | 'scopesClaim' | 'nameClaim'>;

/** Reads the claims of a payload whose signature, issuer, audience, `sub` and times jose has checked. */
export function toVerifiedToken(payload: JWTPayload, settings: ClaimSettings): VerifiedToken {
  const subject = nonEmptyString(payload.sub);
  if (subject === undefined) throw refused('the token has no subject');
  const tenant = nonEmptyString(payload[settings.tenantClaim]);
  if (tenant === undefined) throw refused(`the token has no tenant claim ("${settings.tenantClaim}")`);
  return {
    subject,
    name:
      nonEmptyString(payload[settings.nameClaim]) ?? nonEmptyString(payload.preferred_username) ?? nonEmptyString(payload.email) ?? subject,
    tenant,
    scopes: scopesOf(payload[settings.scopesClaim]),
    // `exp` is a required claim and jose checked it is a number.
    expiresAt: new Date((payload.exp as number) * 1000),
    issuer: payload.iss as string,
  };
}

/** `scope` is a space-separated string (RFC 9068); some providers send an array (`scp`, `roles`). */
function scopesOf(claim: unknown): string[] {
  if (typeof claim === 'string') return claim.split(/\s+/).filter((s) => s.length > 0);
  if (Array.isArray(claim)) return claim.filter((s): s is string => typeof s === 'string' && s.length > 0);
  return [];
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim().length > 0 ? value : undefined;
}
