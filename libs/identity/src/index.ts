// Identity: API keys, OIDC access tokens, stream tokens, principals and scopes.
export { OidcVerifier } from './oidc/oidc-verifier';
export type { OidcVerifierTuning } from './oidc/oidc-verifier';
export { parseOidcSettings, oidcDefaults } from './oidc/oidc-settings';
export type { OidcSettings } from './oidc/oidc-settings';
export type { VerifiedToken } from './oidc/verified-token';
export * from './api-keys/index';
export { Authenticator, AUTH_OFF_PRINCIPAL } from './authenticator';
export type { AuthenticatorOptions, AccessTokenVerifier } from './authenticator';
export * from './stream-tokens/index';
