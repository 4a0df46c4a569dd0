import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { SpindleError } from '@spindle/contracts';

export interface WebhookTargetPolicy {
  /** `http:` targets too (development): otherwise https only. */
  readonly allowHttp: boolean;
  /** Host names and addresses a webhook may reach although they are internal (a receiver inside the cluster). */
  readonly allowedHosts: ReadonlySet<string>;
}

/** Addresses a webhook may not reach unless allowed by name: loopback, private, link-local, CGNAT, unspecified, multicast. */
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
 * Whether an address is one a webhook must not reach. An IPv4 address embedded in IPv6 (mapped,
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

const refuse = (message: string) => new SpindleError('validation_failed', `url: ${message}`, { issues: [{ field: 'url', message }] });

/**
 * A webhook URL checked when it is saved: http(s) as the policy allows, no credentials in it, and
 * no internal address or name unless the allow-list names it. Names are checked again, against
 * every address they resolve to, when each delivery connects (`guardedLookup`).
 */
export function checkWebhookUrl(text: string, policy: WebhookTargetPolicy): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse('not a URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp))
    throw refuse(policy.allowHttp ? 'must be http or https' : 'must be https');
  if (url.username || url.password) throw refuse('must not carry credentials');
  const host = hostOf(url);
  if (policy.allowedHosts.has(host)) return url;
  if (isIP(host) ? isInternalAddress(host) : INTERNAL_NAMES.test(host))
    throw refuse(`${host} is an internal address; only hosts on SPINDLE_WEBHOOK_ALLOWED_HOSTS may be`);
  return url;
}

/** The URL's host as the allow-list names it: lower case, IPv6 without brackets. */
export const hostOf = (url: URL): string =>
  url.hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.+$/, '');

/**
 * A `lookup` for the delivery's connection: resolves the name and refuses (before any byte is
 * sent) when an address it resolves to is internal and the host is not on the allow-list, so a
 * name that resolves somewhere else by the time of delivery (DNS rebinding) reaches nothing.
 */
export function guardedLookup(policy: WebhookTargetPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 4);
      const host = hostname.toLowerCase().replace(/\.+$/, '');
      const blocked = !policy.allowedHosts.has(host) && addresses.find((a) => isInternalAddress(a.address));
      if (blocked)
        return callback(
          Object.assign(new Error(`${hostname} resolves to internal address ${blocked.address}`), { code: 'EBLOCKED' }),
          '',
          4,
        );
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/**
 * Node connects to an IP literal without calling `lookup`, so a literal is checked here, before
 * each delivery connects: undefined when allowed, otherwise why not.
 */
export function literalRefusal(url: URL, policy: WebhookTargetPolicy): string | undefined {
  const host = hostOf(url);
  if (policy.allowedHosts.has(host) || !isIP(host) || !isInternalAddress(host)) return undefined;
  return `EBLOCKED: ${host} is an internal address`;
}
