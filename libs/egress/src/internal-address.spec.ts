import { isInternalAddress, normalizeHost } from './internal-address';

describe('internal addresses', () => {
  it('knows internal addresses, IPv4 embedded in IPv6 included', () => {
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
      'not an address',
    ])
      expect({ address, internal: isInternalAddress(address) }).toEqual({ address, internal: true });
    for (const address of ['93.184.216.34', '2606:2800:220:1::', '::ffff:93.184.216.34', '64:ff9b::5db8:d822', '2002:5db8:d822::1'])
      expect({ address, internal: isInternalAddress(address) }).toEqual({ address, internal: false });
  });

  it('names a host the way allow-lists do: lower case, no brackets, no trailing dot', () => {
    expect(['LocalHost.', '[::1]', 'Hooks.Example..', '127.0.0.1'].map(normalizeHost)).toEqual([
      'localhost',
      '::1',
      'hooks.example',
      '127.0.0.1',
    ]);
  });
});
