import { checkWebhookUrl, guardedLookup, isInternalAddress, literalRefusal } from './webhook-target';
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
      '::7f00:1',
      '::127.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::7f00:1',
      '64:ff9b::10.0.0.1',
      '64:ff9b:1::5db8:d822',
      '2002:7f00:1::',
      '2002:a9fe:a9fe::1',
      '2001:0:4136:e378::1',
      '::',
      'ff02::1',
      'fe80::1%eth0',
      '255.255.255.255',
      '224.0.0.1',
    ])
      expect({ address, internal: isInternalAddress(address) }).toEqual({ address, internal: true });
    for (const address of ['93.184.216.34', '2606:2800:220:1::', '::ffff:93.184.216.34', '64:ff9b::5db8:d822', '2002:5db8:d822::1'])
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
      'https://localhost./x',
      'https://api.localhost/x',
      'https://metadata.internal./x',
      'https://[::7f00:1]/x',
      'https://[64:ff9b::7f00:1]/x',
      'https://[2002:7f00:1::]/x',
      'https://0x7f.1/x',
      'https://2130706433/x',
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

it('refuses an internal IP literal before a delivery connects, since Node connects to one without a lookup', () => {
  expect(literalRefusal(new URL('http://[::7f00:1]/in'), strict)).toMatch(/^EBLOCKED/);
  expect(literalRefusal(new URL('http://127.0.0.1:9/in'), strict)).toMatch(/^EBLOCKED/);
  expect(literalRefusal(new URL('http://127.0.0.1:9/in'), { ...strict, allowedHosts: new Set(['127.0.0.1']) })).toBeUndefined();
  expect(literalRefusal(new URL('https://93.184.216.34/in'), strict)).toBeUndefined();
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
