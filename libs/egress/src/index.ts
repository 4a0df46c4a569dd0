export { isInternalAddress, isInternalName, normalizeHost } from './internal-address';
export { egressCheck, noInternalEgress, parseEgressAllowList, type EgressCheck, type EgressPolicy } from './egress-policy';
export { checkEgressUrl, type EgressUrlRules } from './egress-url';
export { createEgressGuard, egressRefusalIn, guardedLookup, literalRefusal, type EgressGuard, type Resolve } from './egress-guard';
