import { parseOidcSettings } from './oidc-settings';

const issuer = 'https://login.example.com/realms/spindle';

describe('parseOidcSettings', () => {
  it('is off (undefined) when SPINDLE_OIDC_ISSUER is unset or blank', () => {
    expect(parseOidcSettings({})).toBeUndefined();
    expect(parseOidcSettings({ SPINDLE_OIDC_ISSUER: '  ', SPINDLE_OIDC_AUDIENCE: 'spindle' })).toBeUndefined();
  });

  it('refuses an issuer without an audience', () => {
    expect(() => parseOidcSettings({ SPINDLE_OIDC_ISSUER: issuer })).toThrow(/SPINDLE_OIDC_AUDIENCE must be set/);
  });

  it('applies the defaults and freezes the result', () => {
    const settings = parseOidcSettings({ SPINDLE_OIDC_ISSUER: issuer, SPINDLE_OIDC_AUDIENCE: 'spindle-api' });
    expect(settings).toEqual({
      issuer,
      audience: 'spindle-api',
      tenantClaim: 'spindle_tenant',
      scopesClaim: 'scope',
      nameClaim: 'name',
      clockToleranceSec: 5,
    });
    expect(Object.isFrozen(settings)).toBe(true);
  });

  it('reads every override', () => {
    const settings = parseOidcSettings({
      SPINDLE_OIDC_ISSUER: issuer,
      SPINDLE_OIDC_AUDIENCE: 'spindle-api',
      SPINDLE_OIDC_TENANT_CLAIM: 'org_id',
      SPINDLE_OIDC_SCOPES_CLAIM: 'scp',
      SPINDLE_OIDC_NAME_CLAIM: 'nickname',
      SPINDLE_OIDC_CLOCK_TOLERANCE_SEC: '30',
      SPINDLE_OIDC_JWKS_URI: 'https://login.example.com/keys?p=signin',
    });
    expect(settings).toMatchObject({
      tenantClaim: 'org_id',
      scopesClaim: 'scp',
      nameClaim: 'nickname',
      clockToleranceSec: 30,
      jwksUri: 'https://login.example.com/keys?p=signin',
    });
  });

  it.each(['http://localhost:8080/realms/dev', 'http://127.0.0.1:9000'])('allows plain http for a local provider: %s', (local) => {
    expect(parseOidcSettings({ SPINDLE_OIDC_ISSUER: local, SPINDLE_OIDC_AUDIENCE: 'a' })?.issuer).toBe(local);
  });

  it.each([
    ['plain http to another host', { SPINDLE_OIDC_ISSUER: 'http://login.example.com' }, /SPINDLE_OIDC_ISSUER must be an https URL/],
    ['not a URL', { SPINDLE_OIDC_ISSUER: 'login.example.com' }, /SPINDLE_OIDC_ISSUER must be an https URL/],
    ['another scheme', { SPINDLE_OIDC_ISSUER: 'ftp://login.example.com' }, /SPINDLE_OIDC_ISSUER must be an https URL/],
    ['an issuer with a query', { SPINDLE_OIDC_ISSUER: `${issuer}?x=1` }, /must not contain a query/],
    ['a plain-http JWKS URI', { SPINDLE_OIDC_JWKS_URI: 'http://keys.example.com/jwks' }, /SPINDLE_OIDC_JWKS_URI must be an https URL/],
    ['a negative tolerance', { SPINDLE_OIDC_CLOCK_TOLERANCE_SEC: '-1' }, /CLOCK_TOLERANCE_SEC: must be a whole number/],
    ['a fractional tolerance', { SPINDLE_OIDC_CLOCK_TOLERANCE_SEC: '1.5' }, /CLOCK_TOLERANCE_SEC: must be a whole number/],
    ['a huge tolerance', { SPINDLE_OIDC_CLOCK_TOLERANCE_SEC: '3600' }, /CLOCK_TOLERANCE_SEC: must be a whole number/],
  ])('refuses %s', (_, env, message) => {
    expect(() => parseOidcSettings({ SPINDLE_OIDC_ISSUER: issuer, SPINDLE_OIDC_AUDIENCE: 'a', ...env })).toThrow(message);
  });
});
