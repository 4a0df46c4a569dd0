import { decideOrigin, isJsonMediaType, isStateChanging, type OriginPolicy, type RequestSite } from './origin-policy';

const policy: OriginPolicy = { allowedOrigins: new Set(['http://app.example', 'https://ops.example:8443']), trustProxy: false };
const site = (over: Partial<RequestSite>): RequestSite => ({ method: 'POST', host: 'localhost:8080', encrypted: false, ...over });

describe('decideOrigin', () => {
  it('lets clients that are not browsers (no Origin, no Sec-Fetch-Site) through', () => {
    expect(decideOrigin(site({}), policy)).toEqual({ kind: 'pass' });
    expect(decideOrigin(site({ method: 'DELETE', host: undefined }), policy)).toEqual({ kind: 'pass' });
  });

  it("lets the gateway's own pages (the console) change state, default ports and case aside", () => {
    expect(decideOrigin(site({ origin: 'http://localhost:8080', secFetchSite: 'same-origin' }), policy)).toEqual({ kind: 'pass' });
    expect(decideOrigin(site({ origin: 'http://LOCALHOST:80', host: 'localhost' }), policy)).toEqual({ kind: 'pass' });
    expect(decideOrigin(site({ origin: 'https://spindle.example', host: 'spindle.example', encrypted: true }), policy)).toEqual({
      kind: 'pass',
    });
  });

  it('refuses state changes from any other origin, including another port or scheme of the same host', () => {
    for (const origin of ['http://evil.example', 'http://localhost:5173', 'https://localhost:8080', 'null', 'not a url']) {
      const decision = decideOrigin(site({ origin }), policy);
      expect({ origin, kind: decision.kind }).toEqual({ origin, kind: 'refuse' });
    }
    for (const method of ['PUT', 'DELETE', 'PATCH'])
      expect(decideOrigin(site({ method, origin: 'http://evil.example' }), policy).kind).toBe('refuse');
  });

  it('refuses state changes a browser marks cross-site or same-site, even without Origin', () => {
    expect(decideOrigin(site({ secFetchSite: 'cross-site' }), policy)).toMatchObject({
      kind: 'refuse',
      reason: expect.stringContaining('cross-site'),
    });
    expect(decideOrigin(site({ secFetchSite: 'same-site' }), policy).kind).toBe('refuse');
    expect(decideOrigin(site({ secFetchSite: 'none' }), policy).kind).toBe('pass');
    expect(decideOrigin(site({ secFetchSite: 'same-origin', origin: 'http://localhost:8080' }), policy).kind).toBe('pass');
  });

  it('lets reads from any origin through, marking only allow-listed ones readable', () => {
    expect(decideOrigin(site({ method: 'GET', origin: 'http://evil.example', secFetchSite: 'cross-site' }), policy)).toEqual({
      kind: 'pass',
    });
    expect(decideOrigin(site({ method: 'GET', origin: 'http://app.example', secFetchSite: 'cross-site' }), policy)).toEqual({
      kind: 'pass',
      allowOrigin: 'http://app.example',
    });
  });

  it('lets allow-listed origins change state, matched exactly', () => {
    expect(decideOrigin(site({ origin: 'http://app.example', secFetchSite: 'cross-site' }), policy)).toEqual({
      kind: 'pass',
      allowOrigin: 'http://app.example',
    });
    expect(decideOrigin(site({ origin: 'https://ops.example:8443' }), policy)).toEqual({
      kind: 'pass',
      allowOrigin: 'https://ops.example:8443',
    });
    expect(decideOrigin(site({ origin: 'https://app.example' }), policy).kind).toBe('refuse');
    expect(decideOrigin(site({ origin: 'http://app.example.evil.example' }), policy).kind).toBe('refuse');
  });

  it('answers preflights from allow-listed origins and refuses the others', () => {
    const preflight = (origin: string) => site({ method: 'OPTIONS', origin, requestedMethod: 'POST' });
    expect(decideOrigin(preflight('http://app.example'), policy)).toEqual({ kind: 'preflight', allowOrigin: 'http://app.example' });
    expect(decideOrigin(preflight('http://evil.example'), policy).kind).toBe('refuse');
    // An OPTIONS without Access-Control-Request-Method is not a preflight: an ordinary (unrouted) request.
    expect(decideOrigin(site({ method: 'OPTIONS', origin: 'http://evil.example' }), policy)).toEqual({ kind: 'pass' });
  });

  it('believes X-Forwarded-Proto and -Host only when told to trust the proxy', () => {
    const behindProxy = site({
      origin: 'https://spindle.example',
      host: 'gateway:8080',
      forwardedProto: 'https',
      forwardedHost: 'spindle.example',
    });
    expect(decideOrigin(behindProxy, policy).kind).toBe('refuse');
    expect(decideOrigin(behindProxy, { ...policy, trustProxy: true }).kind).toBe('pass');
    expect(
      decideOrigin(
        { ...behindProxy, forwardedProto: 'https, http', forwardedHost: 'spindle.example, inner' },
        { ...policy, trustProxy: true },
      ).kind,
    ).toBe('pass');
  });
});

describe('isStateChanging and isJsonMediaType', () => {
  it('treat every method but GET, HEAD and OPTIONS as a change', () => {
    expect(['GET', 'HEAD', 'OPTIONS', 'get'].map(isStateChanging)).toEqual([false, false, false, false]);
    expect(['POST', 'PUT', 'DELETE', 'PATCH'].map(isStateChanging)).toEqual([true, true, true, true]);
  });

  it('accept application/json with parameters, and nothing a form or a simple fetch can send', () => {
    expect(isJsonMediaType('application/json')).toBe(true);
    expect(isJsonMediaType('Application/JSON; charset=utf-8')).toBe(true);
    for (const type of [
      undefined,
      '',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json-patch+json',
      'text/plain; application/json',
    ]) {
      expect({ type, json: isJsonMediaType(type) }).toEqual({ type, json: false });
    }
  });
});
