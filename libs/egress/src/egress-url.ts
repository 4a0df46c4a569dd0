import { isIP } from 'node:net';
import { SpindleError } from '@spindle/contracts';
import { egressCheck, type EgressPolicy } from './egress-policy';
import { isInternalName, normalizeHost } from './internal-address';

export interface EgressUrlRules {
  /** `http:` too (development); otherwise https only. */
  readonly allowHttp: boolean;
  /** The request field that holds the URL, for the problem's `issues`. */
  readonly field: string;
  /** The setting that allows internal hosts, named in the refusal so the reader knows the way out. */
  readonly allowListVariable: string;
}

/**
 * A target URL checked when it is saved: http(s) as the rules allow and no credentials
 * (`validation_failed`), and no internal IP literal or conventionally internal name the policy
 * does not allow (`egress_refused`). A name is not resolved here: what it resolves to is checked
 * by the guard at every connect, since DNS may answer differently by then.
 */
export function checkEgressUrl(text: string, policy: EgressPolicy, rules: EgressUrlRules): URL {
  const invalid = (message: string) =>
    new SpindleError('validation_failed', `${rules.field}: ${message}`, { issues: [{ field: rules.field, message }] });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid('not a URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && rules.allowHttp))
    throw invalid(rules.allowHttp ? 'must be http or https' : 'must be https');
  if (url.username || url.password) throw invalid('must not carry credentials');
  const host = normalizeHost(url.hostname);
  const internal = isIP(host) ? !egressCheck(policy)(host, host) : isInternalName(host) && !policy.allowedHosts.has(host);
  if (internal) {
    const message = `${host} is an internal address; only hosts on ${rules.allowListVariable} may be`;
    throw new SpindleError('egress_refused', `${rules.field}: ${message}`, { issues: [{ field: rules.field, message }] });
  }
  return url;
}
