import { jwtVerify, type JWTVerifyGetKey } from 'jose';
import { oidcKeySource, type KeySourceTuning } from './oidc-key-source';
import { refused, toRefusal } from './oidc-refusal';
import type { OidcSettings } from './oidc-settings';
import { toVerifiedToken, type VerifiedToken } from './verified-token';

/** Asymmetric algorithms only: with HMAC the "key" would be public JWKS material, and `none` is no signature. */
const acceptedAlgorithms = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** Larger than any real access token; refuses oversized input before parsing it. */
const maxTokenLength = 16 * 1024;

/** Test-only knobs; production uses the defaults. */
export type OidcVerifierTuning = KeySourceTuning;

/**
 * Verifies OIDC access tokens (JWTs) from one provider. Every refusal is a SpindleError with code
 * `unauthenticated` and a short reason that never contains the token. Logs nothing: the caller does.
 */
export class OidcVerifier {
  private readonly keys: JWTVerifyGetKey;

  constructor(
    private readonly settings: OidcSettings,
    tuning: OidcVerifierTuning = {},
  ) {
    this.keys = oidcKeySource(settings, tuning);
  }

  async verify(token: string): Promise<VerifiedToken> {
    if (typeof token !== 'string' || token.length === 0 || token.length > maxTokenLength) throw refused('the token is malformed');
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        algorithms: acceptedAlgorithms,
        clockTolerance: this.settings.clockToleranceSec,
        requiredClaims: ['exp', 'sub'],
      });
      return toVerifiedToken(payload, this.settings);
    } catch (error) {
      throw toRefusal(error);
    }
  }
}
