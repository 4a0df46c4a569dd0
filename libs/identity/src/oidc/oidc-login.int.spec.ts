import { createHash, randomBytes } from 'node:crypto';
import { startOidcIssuer, type LocalOidcIssuer } from '@spindle/testing';
import { decodeJwt } from 'jose';
import { OidcVerifier } from './oidc-verifier';

/**
 * The browser login the console performs (authorization code + PKCE) against the local issuer,
 * over HTTP as a browser would, ending with a token the gateway's verifier accepts.
 */

const clientId = 'spindle-console';
const redirectUri = 'http://127.0.0.1:4200/callback';

interface Pkce {
  verifier: string;
  challenge: string;
}
function newPkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

describe('local OIDC issuer: authorization code + PKCE', () => {
  let idp: LocalOidcIssuer;
  beforeAll(async () => {
    idp = await startOidcIssuer({ audience: 'spindle-api' });
    idp.setLoginUser({ sub: 'user-7', tenant: 'acme', scope: 'runs:read approvals:answer', name: 'Grace', aud: 'spindle-api' });
  });
  afterAll(() => idp.close());

  /** Follows `/authorize` to the redirect and returns its query. */
  async function authorize(pkce: Pkce, extra: Record<string, string> = {}): Promise<URLSearchParams> {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      state: 'state-123',
      scope: 'openid profile',
      ...extra,
    });
    const res = await fetch(`${idp.issuer}/authorize?${query}`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    return location.searchParams;
  }

  async function exchange(
    code: string,
    overrides: Record<string, string> = {},
    pkce?: Pkce,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`${idp.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://127.0.0.1:4200' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: pkce?.verifier ?? '',
        ...overrides,
      }),
    });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it('publishes a discovery document a browser on another origin can read', async () => {
    const res = await fetch(`${idp.issuer}/.well-known/openid-configuration`);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toMatchObject({
      issuer: idp.issuer,
      jwks_uri: idp.jwksUri,
      authorization_endpoint: `${idp.issuer}/authorize`,
      token_endpoint: `${idp.issuer}/token`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
    });
  });

  it('issues a code, and exchanges it for tokens the verifier accepts', async () => {
    const pkce = newPkce();
    const back = await authorize(pkce, { nonce: 'n-1' });
    expect(back.get('state')).toBe('state-123');
    const { status, body } = await exchange(back.get('code') ?? '', {}, pkce);
    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 300 });

    const verifier = new OidcVerifier({
      issuer: idp.issuer,
      audience: 'spindle-api',
      tenantClaim: 'spindle_tenant',
      scopesClaim: 'scope',
      nameClaim: 'name',
      clockToleranceSec: 5,
    });
    await expect(verifier.verify(body.access_token as string)).resolves.toMatchObject({
      subject: 'user-7',
      tenant: 'acme',
      scopes: ['runs:read', 'approvals:answer'],
      name: 'Grace',
    });
    // `openid` was asked for: an ID token for the client, bound to the nonce.
    expect(decodeJwt(body.id_token as string)).toMatchObject({ iss: idp.issuer, aud: clientId, sub: 'user-7', nonce: 'n-1' });
  });

  it('refuses a code verifier that does not match the challenge', async () => {
    const pkce = newPkce();
    const code = (await authorize(pkce)).get('code') ?? '';
    const wrong = await exchange(code, {}, newPkce());
    expect(wrong).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: expect.stringMatching(/code_verifier/) } });
    // The failed attempt used the code up.
    expect((await exchange(code, {}, pkce)).body.error).toBe('invalid_grant');
  });

  it('refuses a code used twice', async () => {
    const pkce = newPkce();
    const code = (await authorize(pkce)).get('code') ?? '';
    expect((await exchange(code, {}, pkce)).status).toBe(200);
    expect(await exchange(code, {}, pkce)).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: expect.stringMatching(/used/) },
    });
  });

  it.each([
    ['redirect_uri', { redirect_uri: 'http://127.0.0.1:4200/elsewhere' }, /redirect_uri/],
    ['client_id', { client_id: 'another-client' }, /client_id/],
  ])('refuses a %s that differs from the authorization request', async (_, overrides, description) => {
    const pkce = newPkce();
    const code = (await authorize(pkce)).get('code') ?? '';
    const { status, body } = await exchange(code, overrides, pkce);
    expect(status).toBe(400);
    expect(body).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(description) });
  });

  it('refuses grants other than authorization_code', async () => {
    const { status, body } = await exchange('', { grant_type: 'password' });
    expect(status).toBe(400);
    expect(body.error).toBe('unsupported_grant_type');
  });

  it.each([
    ['without a code challenge', { code_challenge: '' }, 'invalid_request'],
    ['with the plain challenge method', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['for the implicit flow', { response_type: 'token' }, 'unsupported_response_type'],
  ])('redirects back with an error, and no code, %s', async (_, extra, error) => {
    const back = await authorize(newPkce(), extra);
    expect(back.get('error')).toBe(error);
    expect(back.get('state')).toBe('state-123');
    expect(back.has('code')).toBe(false);
  });
});
