import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { isSpindleError, type SpindleError } from '@spindle/contracts';
import { startOidcIssuer, type LocalOidcIssuer } from '@spindle/testing';
import { decodeJwt } from 'jose';
import type { OidcSettings } from './oidc-settings';
import { OidcVerifier } from './oidc-verifier';

const user = { sub: 'user-1', tenant: 'acme', scope: 'runs:read runs:write', name: 'Ada Lovelace' };

function settingsFor(idp: LocalOidcIssuer, overrides: Partial<OidcSettings> = {}): OidcSettings {
  return {
    issuer: idp.issuer,
    audience: idp.audience,
    tenantClaim: 'spindle_tenant',
    scopesClaim: 'scope',
    nameClaim: 'name',
    clockToleranceSec: 5,
    jwksUri: idp.jwksUri,
    ...overrides,
  };
}

/** Verification must fail with `unauthenticated`, and nothing about the error may carry the token. */
async function refusal(verifier: OidcVerifier, token: string): Promise<SpindleError> {
  const error: unknown = await verifier.verify(token).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isSpindleError(error)) throw new Error(`expected a SpindleError, got ${inspect(error)}`);
  expect(error.code).toBe('unauthenticated');
  const everything = `${error.message} ${JSON.stringify(error)} ${inspect(error, { depth: 10 })}`;
  for (const part of [token, ...token.split('.')].filter((p) => p.length >= 8)) expect(everything).not.toContain(part);
  return error;
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('OidcVerifier', () => {
  let idp: LocalOidcIssuer;
  let verifier: OidcVerifier;
  beforeAll(async () => {
    idp = await startOidcIssuer({ audience: 'spindle-api' });
    verifier = new OidcVerifier(settingsFor(idp));
  });
  afterAll(() => idp.close());

  describe('accepts', () => {
    it('a good token, reading subject, tenant, scopes, name, issuer and expiry', async () => {
      const token = await idp.issue(user);
      await expect(verifier.verify(token)).resolves.toEqual({
        subject: 'user-1',
        tenant: 'acme',
        scopes: ['runs:read', 'runs:write'],
        name: 'Ada Lovelace',
        issuer: idp.issuer,
        expiresAt: new Date((decodeJwt(token).exp as number) * 1000),
      });
    });

    it('scopes given as an array, keeping only non-empty strings', async () => {
      const arrayVerifier = new OidcVerifier(settingsFor(idp, { scopesClaim: 'scp' }));
      const token = await idp.issue({ ...user, scope: undefined, scp: ['runs:read', 7, null, '', 'keys:admin'] });
      expect((await arrayVerifier.verify(token)).scopes).toEqual(['runs:read', 'keys:admin']);
    });

    it('a token with no scopes, as an empty list', async () => {
      expect((await verifier.verify(await idp.issue({ ...user, scope: undefined }))).scopes).toEqual([]);
    });

    it.each([
      ['preferred_username', { name: undefined, preferred_username: 'ada', email: 'ada@example.com' }, 'ada'],
      ['email', { name: undefined, email: 'ada@example.com' }, 'ada@example.com'],
      ['sub', { name: '' }, 'user-1'],
    ])('a token without a name, naming the user by %s', async (_, claims, expected) => {
      expect((await verifier.verify(await idp.issue({ ...user, ...claims }))).name).toBe(expected);
    });

    it('an audience list that contains ours', async () => {
      expect((await verifier.verify(await idp.issue({ ...user, aud: ['other', 'spindle-api'] }))).subject).toBe('user-1');
    });

    it('a token that expired within the clock tolerance', async () => {
      expect((await verifier.verify(await idp.issue({ ...user, expiresInSec: -2 }))).tenant).toBe('acme');
    });
  });

  describe('refuses', () => {
    it.each<[string, () => Promise<string>, RegExp]>([
      ['an expired token', () => idp.issue({ ...user, expiresInSec: -60 }), /has expired/],
      ['a token not yet valid', () => idp.issue({ ...user, notBeforeSec: 60 }), /not yet valid/],
      ['a token from another issuer', () => idp.issue({ ...user, iss: 'https://login.elsewhere.example' }), /different issuer/],
      ['a token for another audience', () => idp.issue({ ...user, aud: 'billing-api' }), /different audience/],
      ['a token without a tenant claim', () => idp.issue({ ...user, tenant: undefined }), /no tenant claim \("spindle_tenant"\)/],
      ['a token with an empty tenant', () => idp.issue({ ...user, tenant: '' }), /no tenant claim/],
      ['a token with a numeric tenant', () => idp.issue({ ...user, tenant: undefined, spindle_tenant: 42 }), /no tenant claim/],
      ['a token without exp', () => idp.issue({ ...user, expiresInSec: null }), /no valid expiry/],
      ['a token with an empty subject', () => idp.issue({ ...user, sub: '' }), /no subject/],
      ['a token signed by a key not in the JWKS', () => idp.issue(user, { signWith: 'foreign' }), /unknown key/],
      [
        'a token signed by another key under a published kid',
        () => idp.issue(user, { signWith: 'foreign', kid: idp.currentKid }),
        /bad signature/,
      ],
      ['a token whose payload was altered', () => tampered(idp), /bad signature/],
      ['an unsigned token (alg none)', () => unsigned(idp), /signing algorithm is not accepted/],
      ['an HS256 token', () => hmacSigned(idp), /signing algorithm is not accepted/],
      ['a garbage string', async () => 'not-a-token-at-all', /malformed/],
      ['three garbage segments', async () => 'abc.def.ghi', /malformed/],
      ['an empty string', async () => '', /malformed/],
      ['an oversized string', async () => 'x'.repeat(20_000), /malformed/],
    ])('%s', async (_, makeToken, reason) => {
      const error = await refusal(verifier, await makeToken());
      expect(error.message).toMatch(reason);
    });

    it('a token whose issuer cannot be reached for keys, without logging or leaking the token', async () => {
      const gone = await startOidcIssuer({ audience: 'spindle-api' });
      const token = await gone.issue(user);
      await gone.close();
      for (const settings of [settingsFor(gone), settingsFor(gone, { jwksUri: undefined })]) {
        const error = await refusal(new OidcVerifier(settings), token);
        expect(error.message).toBe("the identity provider's keys could not be fetched");
      }
    });
  });

  it('fetches the JWKS once and refuses unknown kids without refetching during the cooldown', async () => {
    const own = await startOidcIssuer({ audience: 'spindle-api' });
    try {
      const ownVerifier = new OidcVerifier(settingsFor(own));
      await ownVerifier.verify(await own.issue(user));
      await ownVerifier.verify(await own.issue(user));
      expect(own.jwksFetches).toBe(1);
      // A flood of made-up kids must not turn into a flood of requests to the provider.
      await refusal(ownVerifier, await own.issue(user, { signWith: 'foreign' }));
      await refusal(ownVerifier, await own.issue(user, { signWith: 'foreign' }));
      expect(own.jwksFetches).toBe(1);
    } finally {
      await own.close();
    }
  });

  it('follows key rotation: new kid refetches once, old key works until retired and refetched', async () => {
    const own = await startOidcIssuer({ audience: 'spindle-api' });
    try {
      const rotating = new OidcVerifier(settingsFor(own), { cooldownMs: 0 });
      const firstKid = own.currentKid;
      const oldToken = await own.issue(user);
      await rotating.verify(oldToken);
      expect(own.jwksFetches).toBe(1);

      const { kid: secondKid } = await own.rotate();
      expect(secondKid).not.toBe(firstKid);
      expect((await rotating.verify(await own.issue({ ...user, sub: 'after-rotation' }))).subject).toBe('after-rotation');
      expect(own.jwksFetches).toBe(2);
      // The old key is still published, and now cached: no further fetch.
      expect((await rotating.verify(oldToken)).subject).toBe('user-1');
      expect(own.jwksFetches).toBe(2);

      // Retired keys drop out at the verifier's next refetch (here: the provider rotates again).
      own.retire(firstKid);
      await own.rotate();
      await rotating.verify(await own.issue(user));
      expect(own.jwksFetches).toBe(3);
      expect((await refusal(rotating, oldToken)).message).toMatch(/unknown key/);
      expect((await refusal(rotating, await own.issue(user, { signWith: 'retired' }))).message).toMatch(/unknown key/);
    } finally {
      await own.close();
    }
  });

  describe('discovery', () => {
    it('finds the keys through the discovery document when no JWKS URI is configured', async () => {
      const own = await startOidcIssuer({ audience: 'spindle-api' });
      try {
        const discovering = new OidcVerifier(settingsFor(own, { jwksUri: undefined }));
        expect((await discovering.verify(await own.issue(user))).tenant).toBe('acme');
        expect((await discovering.verify(await own.issue(user))).tenant).toBe('acme');
        expect(own.jwksFetches).toBe(1);
      } finally {
        await own.close();
      }
    });

    it('reads the discovery document once and caches it', async () => {
      const discoveryServer = await serveJson((origin) => ({ issuer: origin, jwks_uri: idp.jwksUri }));
      try {
        const verifierViaDiscovery = new OidcVerifier(settingsFor(idp, { issuer: discoveryServer.origin, jwksUri: undefined }));
        for (const sub of ['first', 'second']) {
          expect((await verifierViaDiscovery.verify(await idp.issue({ ...user, sub, iss: discoveryServer.origin }))).subject).toBe(sub);
        }
        expect(discoveryServer.hits()).toBe(1);
      } finally {
        await discoveryServer.close();
      }
    });

    it('refuses a discovery document that names a different issuer', async () => {
      // A provider whose discovery document speaks for someone else, pointing at real keys.
      const impostor = await serveJson(() => ({ issuer: 'https://login.elsewhere.example', jwks_uri: idp.jwksUri }));
      try {
        const token = await idp.issue({ ...user, iss: impostor.origin });
        const error = await refusal(new OidcVerifier(settingsFor(idp, { issuer: impostor.origin, jwksUri: undefined })), token);
        expect(error.message).toMatch(/discovery document names a different issuer/);
      } finally {
        await impostor.close();
      }
    });
  });
});

/** Same header and signature, tenant changed in the payload. */
async function tampered(idp: LocalOidcIssuer): Promise<string> {
  const token = await idp.issue(user);
  const [header, , signature] = token.split('.');
  const payload = b64({ ...decodeJwt(token), spindle_tenant: 'someone-else' });
  return `${header}.${payload}.${signature}`;
}

function validClaims(idp: LocalOidcIssuer): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return { iss: idp.issuer, aud: idp.audience, sub: user.sub, spindle_tenant: user.tenant, iat: now, exp: now + 300 };
}

function unsigned(idp: LocalOidcIssuer): Promise<string> {
  return Promise.resolve(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(validClaims(idp))}.`);
}

/** HMAC under a published kid: the classic trick of making the verifier treat key material as a shared secret. */
function hmacSigned(idp: LocalOidcIssuer): Promise<string> {
  const input = `${b64({ alg: 'HS256', typ: 'JWT', kid: idp.currentKid })}.${b64(validClaims(idp))}`;
  return Promise.resolve(`${input}.${createHmac('sha256', 'a-shared-secret-of-enough-length!').update(input).digest('base64url')}`);
}

/** A tiny server answering every request with the JSON `body(itsOrigin)` returns, counting requests. */
async function serveJson(body: (origin: string) => object): Promise<{ origin: string; hits(): number; close(): Promise<void> }> {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body(origin)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    hits: () => hits,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
