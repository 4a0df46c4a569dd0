import { SpindleError } from '@spindle/contracts';
import { generateApiKey } from './api-keys/api-key-format';
import { ApiKeyVerifier } from './api-keys/api-key-verifier';
import { AUTH_OFF_PRINCIPAL, Authenticator, type AccessTokenVerifier } from './authenticator';

const made = generateApiKey();
const keys = new ApiKeyVerifier({
  find: async (id) =>
    id === made.id
      ? {
          id,
          name: 'ci',
          tenant: 'acme',
          operator: false,
          scopes: ['runs:read'],
          secretHash: made.secretHash,
          expiresAt: null,
          revokedAt: null,
        }
      : undefined,
  touch: () => undefined,
});
const tokens: AccessTokenVerifier = {
  verify: async (token) => {
    if (token !== 'good.jwt.token') throw new SpindleError('unauthenticated', 'bad signature');
    return {
      subject: 'sub-1',
      name: 'Ada',
      tenant: 'acme',
      scopes: ['runs:read', 'admin', 'openid', 'profile'],
      expiresAt: new Date(),
      issuer: 'https://idp',
    };
  },
};
const tenant = async (id: string) => (id === 'acme' ? { operator: false } : undefined);

describe('Authenticator', () => {
  it('takes a bearer API key or access token, with the scheme in any case', async () => {
    const auth = new Authenticator({ keys, accessTokens: tokens, tenant });
    expect(await auth.authenticate(`Bearer ${made.token}`)).toMatchObject({ actor: { kind: 'key', id: made.id }, tenant: 'acme' });
    const user = await auth.authenticate('bearer good.jwt.token');
    expect(user).toMatchObject({ actor: { kind: 'user', id: 'sub-1', name: 'Ada' }, tenant: 'acme', operator: false, via: 'oidc' });
    // Only Spindle's scopes survive: the provider's own (openid, profile) mean nothing here.
    expect([...user.scopes]).toEqual(['runs:read', 'admin']);
  });

  it('refuses missing, malformed and unverifiable credentials, an unknown tenant, and tokens when none are configured', async () => {
    const auth = new Authenticator({ keys, accessTokens: tokens, tenant });
    const refused = (header: string | undefined, reason: RegExp) =>
      expect(auth.authenticate(header)).rejects.toMatchObject({ code: 'unauthenticated', message: expect.stringMatching(reason) });
    await refused(undefined, /no credentials/);
    await refused('', /no credentials/);
    await refused(`Basic ${made.token}`, /Bearer/);
    await refused('Bearer', /Bearer/);
    await refused('Bearer a b', /Bearer/);
    await refused('Bearer bad.jwt.token', /bad signature/);
    const stranger = new Authenticator({
      keys,
      accessTokens: { verify: async () => ({ ...(await tokens.verify('good.jwt.token')), tenant: 'globex' }) },
      tenant,
    });
    await expect(stranger.authenticate('Bearer good.jwt.token')).rejects.toMatchObject({ message: expect.stringMatching(/globex/) });
    await expect(new Authenticator({ keys, tenant }).authenticate('Bearer good.jwt.token')).rejects.toMatchObject({
      message: expect.stringMatching(/API keys only/),
    });
  });

  it('with authentication off, is the default tenant operator whatever is sent', async () => {
    const auth = new Authenticator({ keys, tenant, authOff: true });
    expect(await auth.authenticate(undefined)).toBe(AUTH_OFF_PRINCIPAL);
    expect(AUTH_OFF_PRINCIPAL).toMatchObject({ tenant: 'default', operator: true, via: 'auth_off' });
  });
});
