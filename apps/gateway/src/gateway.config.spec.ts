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
    });
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
});
