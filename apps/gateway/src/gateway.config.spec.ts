import { parseGatewayConfig } from './gateway.config';

describe('parseGatewayConfig: limits and origins', () => {
  it('has explicit defaults', () => {
    const config = parseGatewayConfig({});
    expect(config).toMatchObject({
      bodyLimitBytes: 1_048_576,
      maxJsonDepth: 64,
      maxHeaderBytes: 16_384,
      corsOrigins: [],
      trustProxy: false,
      streams: { perKey: 100, perTenant: 500, retryAfterSec: 5 },
      httpTimeouts: { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 72_000 },
    });
  });

  it('reads the stream limits and HTTP timeouts, refusing a headers timeout longer than the request timeout', () => {
    const config = parseGatewayConfig({ SPINDLE_STREAMS_PER_KEY: '3', SPINDLE_STREAMS_PER_TENANT: '7', GATEWAY_HEADERS_TIMEOUT_MS: '500' });
    expect(config.streams).toMatchObject({ perKey: 3, perTenant: 7 });
    expect(config.httpTimeouts.headersTimeoutMs).toBe(500);
    expect(() => parseGatewayConfig({ SPINDLE_STREAMS_PER_KEY: '0' })).toThrow('SPINDLE_STREAMS_PER_KEY');
    expect(() => parseGatewayConfig({ GATEWAY_HEADERS_TIMEOUT_MS: '40000' })).toThrow('GATEWAY_REQUEST_TIMEOUT_MS');
  });

  it('reads the allow-list as exact origins and refuses what could never match an Origin header', () => {
    expect(parseGatewayConfig({ SPINDLE_CORS_ORIGINS: 'http://localhost:5173, https://app.example' }).corsOrigins).toEqual([
      'http://localhost:5173',
      'https://app.example',
    ]);
    expect(() => parseGatewayConfig({ SPINDLE_CORS_ORIGINS: 'https://app.example/' })).toThrow(/did you mean https:\/\/app.example\?/);
    expect(() => parseGatewayConfig({ SPINDLE_CORS_ORIGINS: 'https://app.example:443' })).toThrow(/SPINDLE_CORS_ORIGINS/);
    expect(() => parseGatewayConfig({ SPINDLE_CORS_ORIGINS: 'app.example' })).toThrow(/not an origin/);
    expect(() => parseGatewayConfig({ SPINDLE_CORS_ORIGINS: 'null' })).toThrow(/not an origin/);
  });

  it('refuses a depth that is not a positive whole number, and a trust-proxy flag that is not a boolean', () => {
    expect(parseGatewayConfig({ SPINDLE_MAX_JSON_DEPTH: '16' }).maxJsonDepth).toBe(16);
    expect(() => parseGatewayConfig({ SPINDLE_MAX_JSON_DEPTH: '2.5' })).toThrow(/SPINDLE_MAX_JSON_DEPTH/);
    expect(() => parseGatewayConfig({ SPINDLE_MAX_JSON_DEPTH: '0' })).toThrow(/SPINDLE_MAX_JSON_DEPTH/);
    expect(parseGatewayConfig({ SPINDLE_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(() => parseGatewayConfig({ SPINDLE_TRUST_PROXY: 'yes' })).toThrow(/SPINDLE_TRUST_PROXY/);
  });

  it('turns authentication off only on a loopback address, and says why it refuses', () => {
    expect(parseGatewayConfig({ SPINDLE_AUTH: 'off', HOST: '127.0.0.1' }).auth.authOff).toBe(true);
    expect(parseGatewayConfig({}).auth).toMatchObject({ authOff: false, keyCacheMs: 5_000 });
    expect(() => parseGatewayConfig({ SPINDLE_AUTH: 'off' })).toThrow(/refused on HOST=0.0.0.0.*HOST=127.0.0.1/);
    expect(() => parseGatewayConfig({ SPINDLE_AUTH: 'off', HOST: '10.0.0.5' })).toThrow(/SPINDLE_AUTH=off/);
    expect(() => parseGatewayConfig({ SPINDLE_AUTH: 'maybe' })).toThrow(/SPINDLE_AUTH: must be on or off/);
  });

  it('reads OIDC, quota defaults and the dispatch window, refusing what is out of range', () => {
    const config = parseGatewayConfig({
      SPINDLE_OIDC_ISSUER: 'https://login.example/realms/x',
      SPINDLE_OIDC_AUDIENCE: 'spindle',
      SPINDLE_OIDC_CONSOLE_CLIENT_ID: 'console',
      SPINDLE_TENANT_DAILY_TOKENS: '1000000',
    });
    expect(config.auth.oidc).toMatchObject({ consoleClientId: 'console', consoleScope: 'openid profile', jwksCooldownMs: 30_000 });
    expect(config.quotas).toEqual({
      maxRunning: 100,
      startsPerMinute: 600,
      dailyTokenBudget: 1_000_000,
      dailyCostBudgetUsd: null,
      dispatchWindow: 16,
    });
    expect(() => parseGatewayConfig({ SPINDLE_OIDC_ISSUER: 'https://login.example' })).toThrow(/AUDIENCE/);
    expect(() => parseGatewayConfig({ SPINDLE_KEY_CACHE_MS: '61000' })).toThrow(/SPINDLE_KEY_CACHE_MS/);
    expect(() => parseGatewayConfig({ SPINDLE_DISPATCH_WINDOW: '0' })).toThrow(/SPINDLE_DISPATCH_WINDOW/);
  });
});

describe('parseGatewayConfig: flags', () => {
  it.each(['SPINDLE_TRUST_PROXY', 'SPINDLE_WEBHOOK_ALLOW_HTTP'])(
    'reads %s strictly: 1/true on, 0/false off, anything else refused',
    (name) => {
      expect(parseGatewayConfig({ [name]: '1', SPINDLE_WEBHOOK_ALLOWED_HOSTS: '' })).toBeDefined();
      expect(() => parseGatewayConfig({ [name]: 'yes' })).toThrow(
        new RegExp(`invalid environment for gateway: ${name}: must be true or false`),
      );
    },
  );
});
