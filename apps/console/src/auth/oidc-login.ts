import type { AuthConfig } from '@spindle/client';

/** How the gateway's identity provider is reached, from `GET /v1/auth/config`. */
type OidcConsoleConfig = NonNullable<AuthConfig['oidc']>;
import { randomToken, s256Challenge } from './pkce';
import { storePendingLogin, takePendingLogin } from './session-storage';

/**
 * Sign-in with the identity provider: the authorization code flow with PKCE (S256) of a public
 * client. The console's hash routes leave the query free, so the provider answers at `/?code&state`;
 * the code is exchanged with `fetch`, and the user lands back on the route they left.
 */

/** What the provider's discovery document must tell us. */
interface ProviderEndpoints {
  authorizationEndpoint: string;
  tokenEndpoint: string;
}

/** The provider's answer in the console's URL: a code, or an error. */
export type LoginCallback =
  { kind: 'code'; code: string; state: string | null } | { kind: 'error'; error: string; description: string | null; state: string | null };

/** A sign-in that went wrong, with a message for the sign-in screen. */
export class SignInProblem extends Error {}

/** Where the provider sends the browser back: the console itself. */
function redirectUri(): string {
  return `${window.location.origin}/`;
}

/** The issuer's host, to name the sign-in button ("Sign in with login.example.com"). */
export function issuerHost(oidc: OidcConsoleConfig): string {
  try {
    return new URL(oidc.issuer).host;
  } catch {
    return oidc.issuer;
  }
}

/** Saves a fresh `state` and code verifier, then leaves for the provider's login page. */
export async function beginOidcLogin(oidc: OidcConsoleConfig): Promise<void> {
  const { authorizationEndpoint } = await discover(oidc);
  const state = randomToken();
  const codeVerifier = randomToken();
  const url = new URL(authorizationEndpoint);
  const params = {
    response_type: 'code',
    client_id: oidc.clientId,
    redirect_uri: redirectUri(),
    scope: oidc.scope,
    state,
    code_challenge: await s256Challenge(codeVerifier),
    code_challenge_method: 'S256',
    // Some providers (Auth0) mint an access token for an API only when asked by audience; others ignore it.
    audience: oidc.audience,
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  storePendingLogin({ state, codeVerifier, returnTo: window.location.hash });
  window.location.assign(url.href);
}

/** The provider's answer, if the console was opened with one (`?code=…&state=…` or `?error=…`). */
export function loginCallbackIn(search: string): LoginCallback | undefined {
  const q = new URLSearchParams(search);
  const code = q.get('code');
  const error = q.get('error');
  if (code) return { kind: 'code', code, state: q.get('state') };
  if (error) return { kind: 'error', error, description: q.get('error_description'), state: q.get('state') };
  return undefined;
}

/**
 * Finishes a login: takes the pending one (a code is used once), takes the answer out of the
 * address bar and returns to the route the user was on, checks `state`, and exchanges the code
 * for an access token.
 */
export async function completeOidcLogin(oidc: OidcConsoleConfig | null, callback: LoginCallback): Promise<string> {
  const pending = takePendingLogin();
  window.history.replaceState(null, '', `${window.location.pathname}${pending?.returnTo ?? window.location.hash}`);
  if (!pending || callback.state !== pending.state) {
    throw new SignInProblem('The sign-in answer does not belong to a sign-in started in this tab (state mismatch). Please sign in again.');
  }
  if (callback.kind === 'error') {
    throw new SignInProblem(
      `The identity provider refused the sign-in: ${callback.error}${callback.description ? ` (${callback.description})` : ''}`,
    );
  }
  if (!oidc) throw new SignInProblem('The gateway no longer offers signing in with an identity provider.');
  const { tokenEndpoint } = await discover(oidc);
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code: callback.code,
    redirect_uri: redirectUri(),
    client_id: oidc.clientId,
    code_verifier: pending.codeVerifier,
  });
  const res = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  }).catch((e: Error) => {
    throw new SignInProblem(`Could not reach the identity provider's token endpoint: ${e.message}`);
  });
  const body = (await res.json().catch(() => ({}))) as { access_token?: unknown; error?: string; error_description?: string };
  if (!res.ok || typeof body.access_token !== 'string') {
    const why = body.error ? `${body.error}${body.error_description ? `: ${body.error_description}` : ''}` : `HTTP ${res.status}`;
    throw new SignInProblem(`The identity provider did not issue an access token (${why}).`);
  }
  return body.access_token;
}

/** Reads `${issuer}/.well-known/openid-configuration`; its `issuer` must be the one configured. */
async function discover(oidc: OidcConsoleConfig): Promise<ProviderEndpoints> {
  const where = `${oidc.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  let doc: { issuer?: unknown; authorization_endpoint?: unknown; token_endpoint?: unknown };
  try {
    const res = await fetch(where);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    doc = (await res.json()) as typeof doc;
  } catch (e) {
    throw new SignInProblem(`Could not read the identity provider's discovery document at ${where}: ${(e as Error).message}`);
  }
  if (doc.issuer !== oidc.issuer || typeof doc.authorization_endpoint !== 'string' || typeof doc.token_endpoint !== 'string') {
    throw new SignInProblem(`The discovery document at ${where} is not for issuer ${oidc.issuer} or lacks its endpoints.`);
  }
  return { authorizationEndpoint: doc.authorization_endpoint, tokenEndpoint: doc.token_endpoint };
}
