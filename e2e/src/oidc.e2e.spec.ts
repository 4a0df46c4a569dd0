import { startOidcIssuer, startStack, type LocalOidcIssuer, type Stack } from '@spindle/testing';

/** Access tokens of an OpenID Connect provider (a local issuer with keys made in the test), through the gateway. */
describe('OIDC access tokens at the gateway', () => {
  let issuer: LocalOidcIssuer;
  let stack: Stack;
  const call = (token: string, path: string, init: RequestInit = {}) =>
    fetch(`${stack.gatewayUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, ...(init.method && init.method !== 'GET' && { 'content-type': 'application/json' }) },
    });
  const refusal = async (res: Response) => ({ status: res.status, ...((await res.json()) as { code: string; detail: string }) });

  beforeAll(async () => {
    issuer = await startOidcIssuer({ audience: 'spindle-api' });
    stack = await startStack({
      serviceEnv: (s): Record<string, string> =>
        s === 'gateway'
          ? // A short cooldown: the rotation test comes right after refusals that made the gateway fetch the keys.
            { SPINDLE_OIDC_ISSUER: issuer.issuer, SPINDLE_OIDC_AUDIENCE: 'spindle-api', SPINDLE_OIDC_JWKS_COOLDOWN_MS: '0' }
          : {},
    });
    expect((await stack.api('/v1/tenants', { method: 'POST', body: JSON.stringify({ id: 'acme', name: 'Acme' }) })).status).toBe(201);
    const quick = { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }] };
    expect((await stack.api('/v1/workflows/quick', { method: 'PUT', body: JSON.stringify(quick) })).status).toBe(201);
  });
  afterAll(async () => {
    await stack?.stop();
    await issuer?.close();
  });

  it("signs a person in as the token's subject, in the token's tenant, with the Spindle scopes it carries", async () => {
    const token = await issuer.issue({
      sub: 'ada-123',
      name: 'Ada Lovelace',
      tenant: 'acme',
      scope: 'openid runs:read runs:write workflows:write',
    });
    expect(await (await call(token, '/v1/me')).json()).toMatchObject({
      actor: { kind: 'user', id: 'ada-123', name: 'Ada Lovelace' },
      tenant: { id: 'acme', operator: false },
      scopes: ['runs:read', 'runs:write', 'workflows:write'],
      via: 'oidc',
      expiresAt: expect.any(String),
    });
    // Default's workflow is not acme's.
    expect((await call(token, '/v1/workflows/quick/runs', { method: 'POST', body: '{}' })).status).toBe(404);
    const quick = { kind: 'graph', nodes: [{ id: 'a', type: 'set', values: { x: 1 } }] };
    expect((await call(token, '/v1/workflows/quick', { method: 'PUT', body: JSON.stringify(quick) })).status).toBe(201);
    const started = await call(token, '/v1/workflows/quick/runs', { method: 'POST', body: '{}' });
    expect(started.status).toBe(202);
    const { runId } = (await started.json()) as { runId: string };
    const events = (await (await call(token, `/v1/runs/${runId}/events`)).json()) as { events: Array<{ data: unknown }> };
    expect(events.events[0].data).toMatchObject({ tenant: 'acme', startedBy: { kind: 'user', id: 'ada-123', name: 'Ada Lovelace' } });
    // The admin key of default cannot see it.
    expect((await stack.api(`/v1/runs/${runId}`)).status).toBe(404);
  });

  it('lets a token do only what its scopes say', async () => {
    const reader = await issuer.issue({ sub: 'bob', tenant: 'acme', scope: ['runs:read'] });
    expect((await call(reader, '/v1/runs')).status).toBe(200);
    expect(await refusal(await call(reader, '/v1/workflows/quick/runs', { method: 'POST', body: '{}' }))).toMatchObject({
      status: 403,
      code: 'forbidden',
      detail: expect.stringContaining('runs:write'),
    });
    expect((await call(reader, '/v1/keys')).status).toBe(403);
  });

  it('refuses a wrong issuer, audience, signature, expiry, an unknown tenant and garbage, each with 401', async () => {
    const refused = {
      wrongAudience: await issuer.issue({ sub: 'x', tenant: 'acme', aud: 'someone-else' }),
      wrongIssuer: await issuer.issue({ sub: 'x', tenant: 'acme', iss: 'https://evil.example' }),
      expired: await issuer.issue({ sub: 'x', tenant: 'acme', expiresInSec: -120 }),
      foreignKey: await issuer.issue({ sub: 'x', tenant: 'acme' }, { signWith: 'foreign' }),
      unknownTenant: await issuer.issue({ sub: 'x', tenant: 'ghost' }),
      garbage: 'not.a.token',
    };
    for (const [why, token] of Object.entries(refused)) {
      const res = await call(token, '/v1/runs');
      expect({ why, status: res.status, challenge: res.headers.get('www-authenticate') }).toEqual({
        why,
        status: 401,
        challenge: 'Bearer realm="spindle", error="invalid_token"',
      });
      // The answer never repeats the token.
      expect(await res.text()).not.toContain(token.length > 40 ? token.split('.')[1] : token);
    }
  });

  it('follows a key rotation: a token signed with the new key is accepted without a restart', async () => {
    const before = await issuer.issue({ sub: 'carol', tenant: 'acme', scope: 'runs:read' });
    expect((await call(before, '/v1/runs')).status).toBe(200);
    await issuer.rotate();
    const after = await issuer.issue({ sub: 'carol', tenant: 'acme', scope: 'runs:read' });
    expect((await call(after, '/v1/runs')).status).toBe(200);
    expect((await call(before, '/v1/runs')).status).toBe(200);
  });
});
