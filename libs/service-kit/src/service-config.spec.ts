import { parseServiceConfig } from './service-config';

describe('parseServiceConfig: secret masking', () => {
  it('takes the operator patterns and the secrets the environment holds', () => {
    const config = parseServiceConfig(
      { SPINDLE_SECRET_PATTERNS: '["ACME-[0-9]{6}"]', OPENAI_API_KEY: 'sk-the-key', NATS_PASSWORD: 'nats-pass' },
      'runner',
      'RUNNER_PORT',
      8081,
    );
    expect(config.secretMasking.patterns).toEqual(['ACME-[0-9]{6}']);
    expect(config.secretMasking.literals).toEqual(expect.arrayContaining(['sk-the-key', 'nats-pass']));
  });

  it.each([
    ['not JSON', '[oops', /SPINDLE_SECRET_PATTERNS is not valid JSON/],
    ['not an array of strings', '{"a": 1}', /must be a JSON array of RE2 patterns/],
    ['a pattern RE2 does not take', '["(?=look)ahead"]', /SPINDLE_SECRET_PATTERNS: secret pattern 0 is not an RE2 pattern/],
  ])('refuses a start with %s, naming the variable', (_, value, message) => {
    expect(() => parseServiceConfig({ SPINDLE_SECRET_PATTERNS: value }, 'runner', 'RUNNER_PORT', 8081)).toThrow(message);
  });
});

describe('parseServiceConfig: TLS to NATS', () => {
  it('takes a CA, and a client certificate only with its key, each a file that exists', () => {
    const ca = __filename;
    expect(parseServiceConfig({ NATS_TLS_CA: ca }, 'gateway', 'PORT', 8080).natsTls).toEqual({ caFile: ca });
    expect(() => parseServiceConfig({ NATS_TLS_CERT: ca }, 'gateway', 'PORT', 8080)).toThrow(/NATS_TLS_CERT and NATS_TLS_KEY go together/);
    expect(() => parseServiceConfig({ NATS_TLS_CA: '/nowhere/ca.pem' }, 'gateway', 'PORT', 8080)).toThrow(
      /NATS_TLS_CA names \/nowhere\/ca.pem/,
    );
    expect(parseServiceConfig({}, 'gateway', 'PORT', 8080).natsTls).toBeUndefined();
  });
});
