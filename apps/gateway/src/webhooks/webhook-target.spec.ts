import { checkWebhookUrl, guardedLookup, isInternalAddress } from './webhook-target';
import { signWebhook, verifyWebhookSignature } from './webhook-signature';

const strict = { allowHttp: false, allowedHosts: new Set<string>() };

describe('webhook targets', () => {
  it('knows internal addresses, IPv4 mapped into IPv6 included', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
    ])
      expect({ address, internal: isInternalAddress(address) }).toEqual({ address, internal: true });
    for (const address of ['93.184.216.34', '2606:2800:220:1::', '::ffff:93.184.216.34'])
      expect({ address, internal: isInternalAddress(address) }).toEqual({ address, internal: false });
  });

  it('refuses what is not https, carries credentials, or names an internal host, and takes what the allow-list names', () => {
    const refused = (url: string, policy = strict) => {
      try {
        checkWebhookUrl(url, policy);
        return undefined;
      } catch (e) {
        return (e as { code: string }).code;
      }
    };
    for (const url of [
      'not a url',
      'ftp://hooks.example/',
      'http://hooks.example/',
      'https://u:p@hooks.example/',
      'https://10.0.0.5/x',
      'https://[::1]/x',
      'https://localhost/x',
      'https://metadata.internal/x',
      'https://169.254.169.254/latest',
    ])
      expect({ url, code: refused(url) }).toEqual({ url, code: 'validation_failed' });
    expect(refused('https://hooks.example/in')).toBeUndefined();
    expect(refused('http://hooks.example/in', { ...strict, allowHttp: true })).toBeUndefined();
    expect(refused('https://127.0.0.1:9000/in', { ...strict, allowedHosts: new Set(['127.0.0.1']) })).toBeUndefined();
  });

  it('refuses at connect time a name that resolves to an internal address, unless the allow-list names it', async () => {
    const resolve = (policy: typeof strict, host: string) =>
      new Promise<string>((done) =>
        guardedLookup(policy)(host, {}, (err, address) => done(err ? ((err as { code?: string }).code ?? err.message) : String(address))),
      );
    expect(await resolve(strict, 'localhost')).toBe('EBLOCKED');
    expect(await resolve({ ...strict, allowedHosts: new Set(['localhost']) }, 'localhost')).toMatch(/^(127\.0\.0\.1|::1)$/);
  });
});

describe('webhook signatures', () => {
  it('verifies its own signature of the raw body within the tolerance, and nothing else', () => {
    const body = '{"id":"evt_1","type":"run.completed"}';
    const header = signWebhook('whsec_x', body, 1_000);
    expect(verifyWebhookSignature('whsec_x', body, header, 1_100)).toBe(true);
    expect(verifyWebhookSignature('whsec_x', `${body} `, header, 1_100)).toBe(false);
    expect(verifyWebhookSignature('whsec_y', body, header, 1_100)).toBe(false);
    expect(verifyWebhookSignature('whsec_x', body, header, 2_000)).toBe(false);
    expect(verifyWebhookSignature('whsec_x', body, 't=1000,v1=zz', 1_000)).toBe(false);
  });
});
