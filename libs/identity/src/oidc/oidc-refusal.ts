import { SpindleError, isSpindleError } from '@spindle/contracts';
import { errors } from 'jose';

/** Reasons are shown to the caller and logged: they name what was wrong, never the token or its claims. */
export const keysUnavailableReason = "the identity provider's keys could not be fetched";

export function refused(reason: string, cause?: unknown): SpindleError {
  return new SpindleError('unauthenticated', reason, cause === undefined ? {} : { cause });
}

/** The provider's keys or discovery document could not be read (network, status, timeout, shape). */
export class IdentityProviderUnavailable extends Error {
  constructor(message: string, opts?: { cause?: unknown }) {
    super(message, opts);
    this.name = 'IdentityProviderUnavailable';
  }
}

const claimReasons: Record<string, string> = {
  iss: 'the token was issued by a different issuer',
  aud: 'the token is meant for a different audience',
  nbf: 'the token is not yet valid',
  exp: 'the token has no valid expiry',
  sub: 'the token has no subject',
  iat: 'the token has an invalid issue time',
};

/**
 * Maps whatever verification threw to an `unauthenticated` SpindleError. jose errors are not
 * kept as `cause`: claim failures carry the token's payload, which must not reach a log.
 */
export function toRefusal(error: unknown): SpindleError {
  if (isSpindleError(error)) return error;
  if (error instanceof IdentityProviderUnavailable) return refused(keysUnavailableReason, error);
  if (error instanceof errors.JWTExpired) return refused('the token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    return refused(claimReasons[error.claim] ?? `the token's "${error.claim}" claim is invalid`);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return refused('the token has a bad signature');
  if (error instanceof errors.JWKSNoMatchingKey) return refused('the token was signed by an unknown key');
  // Several keys fit a token without `kid`; providers we support always set one.
  if (error instanceof errors.JWKSMultipleMatchingKeys) return refused('the token names no key id and several keys match');
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return refused("the token's signing algorithm is not accepted");
  }
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) return refused(keysUnavailableReason);
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return refused('the token is malformed');
  return refused('the token could not be verified');
}
