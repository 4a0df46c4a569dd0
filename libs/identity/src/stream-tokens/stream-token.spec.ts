import { SpindleError, type Principal } from '@spindle/contracts';
import { generateApiKey } from '../api-keys/api-key-format';
import { ApiKeyVerifier, type StoredApiKey } from '../api-keys/api-key-verifier';
import { Authenticator } from '../authenticator';
import { redactAccessToken, StreamTokenSigner, type StreamTokenClaims } from './stream-token';

const SECRET = 'a-stream-token-secret-of-32-chars!';
const RUN = 'run_stream-token-spec';
const T0 = Date.parse('2026-12-04T06:00:00Z');

const refusal = (reason: RegExp) => expect.objectContaining({ code: 'unauthenticated', message: expect.stringMatching(reason) });

/** Re-signs `claims` as the signer would, for tokens whose claims a test bends. */
function withClaims(signer: StreamTokenSigner, claims: Record<string, unknown>, like: string): string {
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const forged = `sst_${body}.${like.split('.')[1]}`;
  // The signature of another body never fits: a test that needs a valid one mints it.
  expect(() => signer.verify(forged)).toThrow(SpindleError);
  return forged;
}

describe('stream tokens', () => {
  let now = T0;
  const signer = new StreamTokenSigner({ secret: SECRET, now: () => now });
  const subject = { tenant: 'acme', run: RUN, key: 'abcdefghij012345' };
  beforeEach(() => {
    now = T0;
  });

  it('are sst_<claims>.<signature>, and verify back to their claims until they expire', () => {
    const minted = signer.mint(subject, 300);
    expect(minted.token).toMatch(/^sst_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(minted.expiresAt.toISOString()).toBe('2026-12-04T06:05:00.000Z');
    expect(signer.verify(minted.token)).toEqual<StreamTokenClaims>({ ...subject, exp: T0 / 1000 + 300 });
    now = T0 + 299_999;
    expect(signer.verify(minted.token).run).toBe(RUN);
    now = T0 + 300_000;
    expect(() => signer.verify(minted.token)).toThrow(refusal(/expired/));
  });

  it('are refused when malformed, signed under another secret, altered, or of a bent shape; never repeating the token', () => {
    const minted = signer.mint(subject, 60);
    const other = new StreamTokenSigner({ secret: 'another-secret-also-32-characters!!', now: () => now });
    const [body, signature] = minted.token.slice(4).split('.');
    const cases: Array<[string, RegExp]> = [
      ['', /malformed/],
      ['sst_', /malformed/],
      [minted.token.slice(4), /malformed/],
      [`sst_${body}`, /malformed/],
      [`${minted.token}.x`, /malformed/],
      [`sst_${'a'.repeat(2_000)}.${signature}`, /malformed/],
      [other.mint(subject, 60).token, /signature/],
      [`sst_${body}.${signature.slice(0, -2)}`, /signature/],
      [withClaims(signer, { ...subject, run: 'run_someone-else', exp: T0 / 1000 + 60 }, minted.token), /signature/],
    ];
    for (const [token, reason] of cases) {
      const error = (() => {
        try {
          signer.verify(token);
        } catch (e) {
          return e;
        }
      })();
      expect([token, error]).toEqual([token, refusal(reason)]);
      if (token.length > 8) expect(String((error as Error).message)).not.toContain(token);
    }
    // Signed, but not claims: the signature is right and the shape is still refused.
    const signed = (claims: unknown) => {
      const text = Buffer.from(JSON.stringify(claims)).toString('base64url');
      const tokenSigner = signer as unknown as { sign(b: string): Buffer };
      return `sst_${text}.${tokenSigner.sign(text).toString('base64url')}`;
    };
    expect(() => signer.verify(signed({ ...subject, exp: 'soon' }))).toThrow(refusal(/malformed/));
    expect(() => signer.verify(signed({ ...subject, exp: T0 / 1000 + 60, scope: 'admin' }))).toThrow(refusal(/malformed/));
  });

  it('need a configured secret of at least 32 characters; without one each signer has its own', () => {
    expect(() => new StreamTokenSigner({ secret: 'short' })).toThrow(/SPINDLE_STREAM_TOKEN_SECRET must be at least 32 characters/);
    const token = new StreamTokenSigner().mint(subject, 60).token;
    expect(() => new StreamTokenSigner().verify(token)).toThrow(refusal(/signature/));
  });

  it('redact access_token in a URL, wherever it is in the query', () => {
    expect(redactAccessToken('/v1/runs/r/events?access_token=sst_a.b')).toBe('/v1/runs/r/events?access_token=REDACTED');
    expect(redactAccessToken('/v1/runs/r/events?after=3&ACCESS_TOKEN=x&y=1#f')).toBe(
      '/v1/runs/r/events?after=3&ACCESS_TOKEN=REDACTED&y=1#f',
    );
    expect(redactAccessToken('/v1/runs/r/events?my_access_token=keep')).toBe('/v1/runs/r/events?my_access_token=keep');
  });
});

describe('Authenticator and stream tokens', () => {
  let now = T0;
  const reader = generateApiKey();
  const stored: StoredApiKey = {
    id: reader.id,
    name: 'page backend',
    tenant: 'acme',
    operator: false,
    scopes: ['runs:read', 'runs:write'],
    secretHash: reader.secretHash,
    expiresAt: new Date(T0 + 3_600_000),
    revokedAt: null,
  };
  let key: StoredApiKey | undefined = stored;
  const keys = new ApiKeyVerifier({
    find: async (id) => (id === reader.id ? key : undefined),
    touch: () => undefined,
    cacheMs: 0,
    now: () => now,
  });
  const streamTokens = new StreamTokenSigner({ secret: SECRET, now: () => now });
  const auth = new Authenticator({ keys, tenant: async () => ({ operator: false }), streamTokens });
  beforeEach(() => {
    now = T0;
    key = stored;
  });

  it("read the one run as the minting key's principal, with runs:read and nothing more", async () => {
    const caller = await auth.authenticate(`Bearer ${reader.token}`);
    const { token } = auth.mintStreamToken(caller, RUN, 60);
    const principal = await auth.authenticateStreamToken(token, RUN);
    expect(principal).toMatchObject<Partial<Principal>>({ actor: { kind: 'key', id: reader.id, name: 'page backend' }, tenant: 'acme' });
    expect([...principal.scopes]).toEqual(['runs:read']);
    await expect(auth.authenticateStreamToken(token, 'run_another')).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('stop working when the minting key is revoked, expires or is gone', async () => {
    const { token } = auth.mintStreamToken(await auth.authenticate(`Bearer ${reader.token}`), RUN, 900);
    key = { ...stored, revokedAt: new Date(T0) };
    await expect(auth.authenticateStreamToken(token, RUN)).rejects.toEqual(refusal(/revoked/));
    key = { ...stored, expiresAt: new Date(T0 + 1) };
    now = T0 + 1;
    await expect(auth.authenticateStreamToken(token, RUN)).rejects.toEqual(refusal(/expired/));
    key = undefined;
    await expect(auth.authenticateStreamToken(token, RUN)).rejects.toEqual(refusal(/no longer exists/));
  });

  it('are minted only with an API key', async () => {
    const user: Principal = {
      actor: { kind: 'user', id: 'sub', name: 'Ada' },
      tenant: 'acme',
      scopes: new Set(['runs:read']),
      operator: false,
      via: 'oidc',
    };
    expect(() => auth.mintStreamToken(user, RUN, 60)).toThrow(
      expect.objectContaining({ code: 'forbidden', message: expect.stringMatching(/API key/) }),
    );
  });
});
