/**
 * Which browser pages may drive the gateway. A page on another origin can send a "simple" POST
 * (no preflight) to a gateway on localhost, so every state change from a page that is neither
 * the gateway's own (the console) nor allow-listed is refused before any handler runs. Clients
 * that are not browsers send neither `Origin` nor `Sec-Fetch-Site` and pass.
 */
export interface OriginPolicy {
  /** Exact origins (`SPINDLE_CORS_ORIGINS`). */
  allowedOrigins: ReadonlySet<string>;
  /** Believe `X-Forwarded-Proto`/`X-Forwarded-Host` about the gateway's own origin. */
  trustProxy: boolean;
}

/** What the decision needs to know about a request, as plain strings. */
export interface RequestSite {
  method: string;
  origin?: string;
  secFetchSite?: string;
  /** `Access-Control-Request-Method`: present on a CORS preflight. */
  requestedMethod?: string;
  host?: string;
  /** Whether the connection itself is TLS. */
  encrypted: boolean;
  forwardedProto?: string;
  forwardedHost?: string;
}

export type OriginDecision =
  /** Answer a preflight from a trusted page: `204` with the CORS headers. */
  | { kind: 'preflight'; allowOrigin: string }
  | { kind: 'refuse'; reason: string }
  /** Go on; an allow-listed page also gets the CORS headers on the response. */
  | { kind: 'pass'; allowOrigin?: string };

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Every method but GET, HEAD and OPTIONS changes something. */
export const isStateChanging = (method: string): boolean => !SAFE_METHODS.has(method.toUpperCase());

export function decideOrigin(site: RequestSite, policy: OriginPolicy): OriginDecision {
  const { origin } = site;
  const listed = origin !== undefined && policy.allowedOrigins.has(origin);
  const own = ownOrigin(site, policy);
  const sameOrigin = origin !== undefined && own !== undefined && canonicalOrigin(origin) === own;
  if (site.method.toUpperCase() === 'OPTIONS' && origin !== undefined && site.requestedMethod !== undefined) {
    return listed || sameOrigin ? { kind: 'preflight', allowOrigin: origin } : { kind: 'refuse', reason: notAllowed(origin, own) };
  }
  if (isStateChanging(site.method)) {
    if (origin !== undefined && !listed && !sameOrigin) return { kind: 'refuse', reason: notAllowed(origin, own) };
    // A browser that sends Sec-Fetch-Site but no Origin still says where the page was.
    const fetchSite = site.secFetchSite?.toLowerCase();
    if ((fetchSite === 'cross-site' || fetchSite === 'same-site') && !listed) {
      return {
        kind: 'refuse',
        reason:
          `a page on another site (Sec-Fetch-Site: ${fetchSite}) may not change anything here; ` +
          'allow its origin with SPINDLE_CORS_ORIGINS',
      };
    }
  }
  return listed ? { kind: 'pass', allowOrigin: origin } : { kind: 'pass' };
}

/** The media type of a Content-Type header is JSON (parameters such as `charset` aside). */
export function isJsonMediaType(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.split(';')[0].trim().toLowerCase() === 'application/json';
}

/** `scheme://host[:port]` as a browser would write it, or `undefined` when `text` is not an http(s) origin. */
export function canonicalOrigin(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

function ownOrigin(site: RequestSite, policy: OriginPolicy): string | undefined {
  const first = (value: string | undefined) => value?.split(',')[0].trim() || undefined;
  const scheme = (policy.trustProxy && first(site.forwardedProto)?.toLowerCase()) || (site.encrypted ? 'https' : 'http');
  const host = (policy.trustProxy && first(site.forwardedHost)) || site.host;
  return host ? canonicalOrigin(`${scheme}://${host}`) : undefined;
}

function notAllowed(origin: string, own: string | undefined): string {
  const ownOrigin = own ? ` (${own})` : '';
  const page = JSON.stringify(origin.slice(0, 200));
  return `pages on ${page} may not call this API: it is not this gateway's origin${ownOrigin} nor listed in SPINDLE_CORS_ORIGINS`;
}
