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

/** Whether an address is one a webhook must not reach (an IPv4 address mapped into IPv6 counts as itself). */
export function isInternalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return INTERNAL.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return INTERNAL.check(address, family === 4 ? 'ipv4' : 'ipv6');
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
export const hostOf = (url: URL): string => url.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');

/**
 * A `lookup` for the delivery's connection: resolves the name and refuses (before any byte is
 * sent) when an address it resolves to is internal and the host is not on the allow-list, so a
 * name that resolves somewhere else by the time of delivery (DNS rebinding) reaches nothing.
 */
export function guardedLookup(policy: WebhookTargetPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 4);
      const host = hostname.toLowerCase();
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
