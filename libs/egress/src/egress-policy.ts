import { BlockList, isIP } from 'node:net';
import { isInternalAddress, normalizeHost } from './internal-address';

/**
 * Which internal targets an operator lets outbound requests reach. Anything public is reachable;
 * an internal address (loopback, private, link-local, …) only when the operator named it here,
 * by host (the name a URL gives, or an IP literal) or by network.
 */
export interface EgressPolicy {
  /** Host names and IP literals, as `normalizeHost` gives them. A name listed here may resolve to anything. */
  readonly allowedHosts: ReadonlySet<string>;
  /** CIDR ranges (`10.20.0.0/16`, `fd00:1::/64`) whose addresses may be reached whatever name led there. */
  readonly allowedNetworks: readonly string[];
}

/** Nothing internal is reachable. */
export const noInternalEgress: EgressPolicy = Object.freeze({ allowedHosts: new Set<string>(), allowedNetworks: [] });

/**
 * An allow-list as an operator writes it: comma-separated host names, IP literals and CIDR
 * ranges (`mcp.corp, 127.0.0.1, 10.20.0.0/16`). `variable` names it in the error of a bad entry.
 */
export function parseEgressAllowList(text: string | undefined, variable: string): EgressPolicy {
  const entries = (text ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const networks = entries.filter((e) => e.includes('/'));
  for (const network of networks) {
    const [address, bits] = network.split('/');
    const max = isIP(address) === 4 ? 32 : isIP(address) === 6 ? 128 : -1;
    if (max < 0 || !/^\d+$/.test(bits) || Number(bits) > max)
      throw new Error(`${variable}: "${network}" is neither a host nor a CIDR range (address/prefix)`);
  }
  return Object.freeze({
    allowedHosts: new Set(entries.filter((e) => !e.includes('/')).map(normalizeHost)),
    allowedNetworks: Object.freeze(networks),
  });
}

/** The policy as a question: may a request for `host` reach `address`? */
export type EgressCheck = (host: string, address: string) => boolean;

/** One check per policy: the guard asks it at every connect of an IP literal. */
const checks = new WeakMap<EgressPolicy, EgressCheck>();

export function egressCheck(policy: EgressPolicy): EgressCheck {
  let check = checks.get(policy);
  if (!check) {
    check = buildCheck(policy);
    checks.set(policy, check);
  }
  return check;
}

function buildCheck(policy: EgressPolicy): EgressCheck {
  const networks = new BlockList();
  for (const network of policy.allowedNetworks) {
    const [address, bits] = network.split('/');
    networks.addSubnet(address, Number(bits), isIP(address) === 6 ? 'ipv6' : 'ipv4');
  }
  const inNetworks = (address: string) => {
    const plain = address.split('%')[0];
    const family = isIP(plain);
    return family !== 0 && networks.check(plain, family === 6 ? 'ipv6' : 'ipv4');
  };
  return (host, address) => !isInternalAddress(address) || policy.allowedHosts.has(normalizeHost(host)) || inNetworks(address);
}
