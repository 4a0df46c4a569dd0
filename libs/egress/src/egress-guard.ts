import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isSpindleError, SpindleError } from '@spindle/contracts';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { egressCheck, type EgressPolicy } from './egress-policy';
import { normalizeHost } from './internal-address';

/** Resolves a name to every address it has; DNS by default, a fixed table in tests. */
export type Resolve = (hostname: string, family: number | undefined) => Promise<LookupAddress[]>;

const systemResolve: Resolve = (hostname, family) => dns.lookup(hostname, { all: true, ...(family ? { family } : {}) });

/** Outbound requests through one policy, checked when each connection is made. */
export interface EgressGuard {
  /**
   * `fetch` whose every connection (each redirect's too) is checked: an internal target the policy
   * does not allow fails with `egress_refused` before a byte is sent. Node's own `fetch` ignores
   * `lookup`, so this is undici's with a checking connector.
   */
  readonly fetch: typeof fetch;
  /** Ends the guard's idle connections. */
  close(): Promise<void>;
}

const refusal = (message: string) => new SpindleError('egress_refused', message);

/** The guard's refusal in an error, however deep a client wrapped it (`fetch failed` → cause), or undefined. */
export function egressRefusalIn(error: unknown): SpindleError | undefined {
  for (let e = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++)
    if (isSpindleError(e) && e.code === 'egress_refused') return e;
  return undefined;
}

/**
 * A `lookup` for a connection: resolves the name and refuses when an address it resolves to is
 * internal and not allowed, so a name that resolves somewhere else by the time of the connect
 * (DNS rebinding) reaches nothing it may not.
 */
export function guardedLookup(policy: EgressPolicy, resolve: Resolve = systemResolve): LookupFunction {
  const allows = egressCheck(policy);
  return (hostname, options, callback) => {
    resolve(hostname, options.family === 4 || options.family === 6 ? options.family : undefined).then(
      (addresses) => {
        const blocked = addresses.find((a) => !allows(hostname, a.address));
        if (blocked) return callback(refusal(`${normalizeHost(hostname)} resolves to internal address ${blocked.address}`), '', 4);
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 4);
        if (options.all) return callback(null, addresses);
        callback(null, addresses[0].address, addresses[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 4),
    );
  };
}

/** The refusal for an IP literal host, which Node connects to without calling `lookup`; undefined for a name or an allowed address. */
export function literalRefusal(host: string, policy: EgressPolicy): SpindleError | undefined {
  const address = normalizeHost(host);
  if (!isIP(address) || egressCheck(policy)(address, address)) return undefined;
  return refusal(`${address} is an internal address`);
}

export function createEgressGuard(policy: EgressPolicy, options: { resolve?: Resolve } = {}): EgressGuard {
  const connect = buildConnector({ lookup: guardedLookup(policy, options.resolve) });
  const agent = new Agent({
    connect: (opts, callback) => {
      const refused = literalRefusal(opts.hostname, policy);
      if (refused) return callback(refused, null);
      connect(opts, callback);
    },
  });
  const guarded = async (input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) => {
    try {
      return await undiciFetch(input, { ...init, dispatcher: agent });
    } catch (error) {
      throw egressRefusalIn(error) ?? error;
    }
  };
  return { fetch: guarded as unknown as typeof fetch, close: () => agent.close() };
}
