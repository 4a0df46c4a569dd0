import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

/**
 * A real OpenID Connect provider on 127.0.0.1 for tests: discovery, a JWKS with rotating RSA keys,
 * minted access tokens, and the authorization-code + PKCE login a browser console performs.
 * Keys live in memory; nothing touches the network beyond loopback.
 */

/** Claims of a minted token. Known names get defaults; any other key is copied as a claim (undefined omits it). */
export interface OidcTestClaims {
  sub: string;
  /** Written as the `spindle_tenant` claim. */
  tenant?: string;
  scope?: string | string[];
  name?: string;
  /** Defaults to the issuer's audience. */
  aud?: string | string[];
  /** Lifetime; default 300. `null` mints a token without `exp`. */
  expiresInSec?: number | null;
  /** Sets `nbf` this many seconds from now. */
  notBeforeSec?: number;
  /** Defaults to the issuer's URL. */
  iss?: string;
  [claim: string]: unknown;
}

export interface OidcIssueOptions {
  /** The header's `kid`; defaults to the signing key's own. */
  kid?: string;
  /** The header's `alg`; defaults to RS256 (the key is RSA, so RS* and PS* sign). */
  alg?: string;
  /** `retired`: the key most recently retired; `foreign`: a key never published. */
  signWith?: 'current' | 'retired' | 'foreign';
}

/** The user `/authorize` approves without asking. */
export interface OidcLoginUser {
  sub: string;
  tenant: string;
  scope: string;
  name?: string;
  aud: string;
}

export interface LocalOidcIssuer {
  /** http://127.0.0.1:<port> */
  readonly issuer: string;
  readonly jwksUri: string;
  /** The `aud` minted tokens carry by default. */
  readonly audience: string;
  /** Mints an access token signed by the current key. */
  issue(claims: OidcTestClaims, opts?: OidcIssueOptions): Promise<string>;
  /** Adds a new signing key (published in the JWKS) and makes it current; the old one stays published until `retire`. */
  rotate(): Promise<{ kid: string }>;
  /** Removes a key from the JWKS; `issue(…, { signWith: 'retired' })` can still sign with it. */
  retire(kid: string): void;
  /** The current signing key's id. */
  readonly currentKid: string;
  /** How many times the JWKS was fetched (to check caching and rotation). */
  readonly jwksFetches: number;
  /**
   * Authorization code + PKCE (S256) for a browser login: `GET /authorize` redirects back with a
   * code for this user; `POST /token` exchanges it once, checking verifier, client and redirect URI.
   */
  setLoginUser(user: OidcLoginUser): void;
  close(): Promise<void>;
}

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
interface SigningKey {
  kid: string;
  privateKey: PrivateKey;
  publicJwk: JWK;
}
interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  user: OidcLoginUser;
  openid: boolean;
  nonce: string | null;
  expiresAt: number;
}

const tokenLifetimeSec = 300;
const codeLifetimeMs = 60_000;
const maxFormBytes = 64 * 1024;
const cors = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'content-type',
};

async function newSigningKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const kid = randomBytes(8).toString('hex');
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

export async function startOidcIssuer(opts: { audience?: string } = {}): Promise<LocalOidcIssuer> {
  const audience = opts.audience ?? 'spindle';
  let current = await newSigningKey();
  const published: SigningKey[] = [current];
  const retired: SigningKey[] = [];
  const foreign = await newSigningKey();
  const codes = new Map<string, PendingCode>();
  let loginUser: OidcLoginUser | undefined;
  let jwksFetches = 0;
  let issuer = '';

  async function issue(claims: OidcTestClaims, o: OidcIssueOptions = {}): Promise<string> {
    const { tenant, expiresInSec = tokenLifetimeSec, notBeforeSec, ...rest } = claims;
    const key = o.signWith === 'foreign' ? foreign : o.signWith === 'retired' ? retired.at(-1) : current;
    if (key === undefined) throw new Error('no retired key to sign with: call retire() first');
    const now = Math.floor(Date.now() / 1000);
    const payload = {
      iss: issuer,
      aud: audience,
      iat: now,
      ...(expiresInSec === null ? {} : { exp: now + expiresInSec }),
      ...(notBeforeSec === undefined ? {} : { nbf: now + notBeforeSec }),
      ...(tenant === undefined ? {} : { spindle_tenant: tenant }),
      ...rest,
    };
    return new SignJWT(payload).setProtectedHeader({ alg: o.alg ?? 'RS256', kid: o.kid ?? key.kid, typ: 'JWT' }).sign(key.privateKey);
  }

  const discovery = (): object => ({
    issuer,
    jwks_uri: `${issuer}/jwks`,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    scopes_supported: ['openid', 'profile'],
  });

  function authorize(url: URL, res: ServerResponse): void {
    const q = url.searchParams;
    const clientId = q.get('client_id');
    const redirectUri = q.get('redirect_uri');
    // Without a trustworthy redirect target the error cannot go back to the client (RFC 6749 §4.1.2.1).
    if (!clientId || !redirectUri || !URL.canParse(redirectUri)) {
      return json(res, 400, { error: 'invalid_request', error_description: 'client_id and an absolute redirect_uri are required' });
    }
    const back = (params: Record<string, string>): void => {
      const target = new URL(redirectUri);
      for (const [k, v] of Object.entries({ ...params, ...(q.has('state') ? { state: q.get('state') as string } : {}) })) {
        target.searchParams.set(k, v);
      }
      res.writeHead(302, { location: target.href }).end();
    };
    const challenge = q.get('code_challenge');
    if (q.get('response_type') !== 'code') return back({ error: 'unsupported_response_type', error_description: 'only "code"' });
    if (!challenge || q.get('code_challenge_method') !== 'S256') {
      return back({ error: 'invalid_request', error_description: 'PKCE with code_challenge_method=S256 is required' });
    }
    if (loginUser === undefined) return back({ error: 'access_denied', error_description: 'no login user: call setLoginUser' });
    const code = randomBytes(32).toString('base64url');
    const openid = (q.get('scope') ?? '').split(' ').includes('openid');
    codes.set(code, {
      clientId,
      redirectUri,
      challenge,
      user: loginUser,
      openid,
      nonce: q.get('nonce'),
      expiresAt: Date.now() + codeLifetimeMs,
    });
    back({ code });
  }

  async function token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refuse = (error: string, description: string): void => json(res, 400, { error, error_description: description });
    if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      return refuse('invalid_request', 'the body must be application/x-www-form-urlencoded');
    }
    const form = new URLSearchParams(await readBody(req));
    if (form.get('grant_type') !== 'authorization_code') return refuse('unsupported_grant_type', 'only authorization_code');
    const code = form.get('code') ?? '';
    const grant = codes.get(code);
    // Single use: any attempt burns the code, so a leaked code cannot be retried with guessed verifiers.
    codes.delete(code);
    if (grant === undefined || grant.expiresAt < Date.now()) return refuse('invalid_grant', 'the code is unknown, used or expired');
    if (form.get('client_id') !== grant.clientId) return refuse('invalid_grant', 'client_id does not match the authorization request');
    if (form.get('redirect_uri') !== grant.redirectUri)
      return refuse('invalid_grant', 'redirect_uri does not match the authorization request');
    const verifier = form.get('code_verifier') ?? '';
    if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier) || createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) {
      return refuse('invalid_grant', 'code_verifier does not match the code_challenge');
    }
    const { user } = grant;
    const body: Record<string, unknown> = {
      access_token: await issue({ sub: user.sub, tenant: user.tenant, scope: user.scope, name: user.name, aud: user.aud }),
      token_type: 'Bearer',
      expires_in: tokenLifetimeSec,
      scope: user.scope,
    };
    if (grant.openid) {
      body.id_token = await issue({ sub: user.sub, name: user.name, aud: grant.clientId, nonce: grant.nonce ?? undefined });
    }
    json(res, 200, body);
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', issuer);
    const at = `${req.method} ${url.pathname}`;
    if (req.method === 'OPTIONS') return void res.writeHead(204, cors).end();
    if (at === 'GET /.well-known/openid-configuration') return json(res, 200, discovery());
    if (at === 'GET /jwks') {
      jwksFetches += 1;
      return json(res, 200, { keys: published.map((k) => k.publicJwk) });
    }
    if (at === 'GET /authorize') return authorize(url, res);
    if (at === 'POST /token') return token(req, res);
    json(res, 404, { error: 'not_found' });
  }

  const server = createServer((req, res) => {
    route(req, res).catch((e: unknown) => {
      if (!res.headersSent) json(res, 500, { error: 'server_error', error_description: String(e) });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Port 0: the kernel picks a free port, with no window for another process to take it.
    server.listen(0, '127.0.0.1', resolve);
  });
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    audience,
    issue,
    async rotate() {
      current = await newSigningKey();
      published.push(current);
      return { kid: current.kid };
    },
    retire(kid) {
      const index = published.findIndex((k) => k.kid === kid);
      if (index < 0) throw new Error(`no published key ${kid}`);
      retired.push(...published.splice(index, 1));
    },
    get currentKid() {
      return current.kid;
    },
    get jwksFetches() {
      return jwksFetches;
    },
    setLoginUser(user) {
      loginUser = { ...user };
    },
    close() {
      if (!server.listening) return Promise.resolve();
      // Verifiers keep connections alive; drop them so close() does not wait for their idle timeout.
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
    },
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...cors }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxFormBytes) throw new Error('request body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
