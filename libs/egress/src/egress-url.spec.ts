import { checkEgressUrl } from './egress-url';
import { noInternalEgress, parseEgressAllowList } from './egress-policy';

const rules = { allowHttp: false, field: 'url', allowListVariable: 'SPINDLE_WEBHOOK_ALLOWED_HOSTS' };

/** The code a URL is refused with, or undefined when it is taken. */
function refused(url: string, policy = noInternalEgress, allowHttp = false): string | undefined {
  try {
    checkEgressUrl(url, policy, { ...rules, allowHttp });
    return undefined;
  } catch (e) {
    return (e as { code: string }).code;
  }
}

describe('checkEgressUrl (at save)', () => {
  it('refuses what is not https or carries credentials as invalid', () => {
    for (const url of ['not a url', 'ftp://hooks.example/', 'http://hooks.example/', 'https://u:p@hooks.example/'])
      expect({ url, code: refused(url) }).toEqual({ url, code: 'validation_failed' });
    expect(refused('http://hooks.example/in', noInternalEgress, true)).toBeUndefined();
  });

  it('refuses an internal literal or name as egress_refused, trailing dots and IPv4 in IPv6 included', () => {
    for (const url of [
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
      expect({ url, code: refused(url) }).toEqual({ url, code: 'egress_refused' });
    expect(() => checkEgressUrl('https://10.0.0.5/x', noInternalEgress, rules)).toThrow(
      expect.objectContaining({ issues: [{ field: 'url', message: expect.stringContaining('SPINDLE_WEBHOOK_ALLOWED_HOSTS') }] }),
    );
  });

  it('takes a public host, and an internal one the operator names by host or network', () => {
    expect(refused('https://hooks.example/in')).toBeUndefined();
    const allowed = parseEgressAllowList('127.0.0.1, Receiver.Internal, 10.20.0.0/16', 'X');
    expect(refused('https://127.0.0.1:9000/in', allowed)).toBeUndefined();
    expect(refused('https://receiver.internal./in', allowed)).toBeUndefined();
    expect(refused('https://10.20.3.4/in', allowed)).toBeUndefined();
    expect(refused('https://10.21.0.1/in', allowed)).toBe('egress_refused');
  });

  it('says which entry of an allow-list is wrong', () => {
    expect(() => parseEgressAllowList('ok.example, 10.0.0.0/33', 'SPINDLE_EGRESS_ALLOWED_HOSTS')).toThrow(
      'SPINDLE_EGRESS_ALLOWED_HOSTS: "10.0.0.0/33" is neither a host nor a CIDR range (address/prefix)',
    );
  });
});
