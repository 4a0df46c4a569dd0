import { BlockList, isIP } from 'node:net';

/** Addresses no outbound request may reach unless allowed: loopback, private, link-local, CGNAT, unspecified, multicast. */
const INTERNAL = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  INTERNAL.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  INTERNAL.addSubnet(net, prefix, 'ipv6');

/** IPv6 ranges that carry an IPv4 address whose own class decides: compatible, mapped, SIIT, NAT64 (RFC 6052), 6to4. */
const EMBEDDING: readonly { prefix: string; bits: number; at: number }[] = [
  { prefix: '0:0:0:0:0:0', bits: 96, at: 6 },
  { prefix: '0:0:0:0:0:ffff', bits: 96, at: 6 },
  { prefix: '0:0:0:0:ffff:0', bits: 96, at: 6 },
  { prefix: '64:ff9b:0:0:0:0', bits: 96, at: 6 },
];

/** Eight 16-bit groups of an IPv6 address, or undefined. */
function ipv6Groups(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.toLowerCase().split('%')[0];
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4)
    text = text.slice(0, v4.index) + (((+v4[1] << 8) | +v4[2]) >>> 0).toString(16) + ':' + (((+v4[3] << 8) | +v4[4]) >>> 0).toString(16);
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((g) => parseInt(g, 16));
}

const ipv4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * Whether an address is internal: one no outbound request may reach unless allowed. An IPv4 address embedded in IPv6 (mapped,
 * compatible, NAT64, 6to4) counts as itself; the local-use NAT64 prefix and Teredo count as internal.
 */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return INTERNAL.check(address, 'ipv4');
  const groups = ipv6Groups(address);
  if (!groups) return true;
  const key = groups
    .slice(0, 6)
    .map((g) => g.toString(16))
    .join(':');
  const embedding = EMBEDDING.find((e) => e.prefix === key);
  if (embedding && !(key === '0:0:0:0:0:0' && groups[6] === 0 && groups[7] <= 1))
    return INTERNAL.check(ipv4Of(groups[6], groups[7]), 'ipv4');
  if (groups[0] === 0x2002) return INTERNAL.check(ipv4Of(groups[1], groups[2]), 'ipv4');
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups[2] === 1) return true;
  if (groups[0] === 0x2001 && groups[1] === 0) return true;
  return INTERNAL.check(address.split('%')[0], 'ipv6');
}

const INTERNAL_NAMES = /(^|\.)(localhost|local|internal|localdomain)$/i;

/** Names that mean an internal host by convention (`localhost`, `*.internal`, …): refused at save without a lookup. */
export const isInternalName = (host: string): boolean => INTERNAL_NAMES.test(host);

/** A host as an allow-list names it: lower case, IPv6 without brackets, no trailing dot (`localhost.` is `localhost`). */
export const normalizeHost = (host: string): string =>
  host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.+$/, '');
