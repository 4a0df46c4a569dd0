/** How many event streams one principal, and one tenant, may hold open on a gateway at once. */
export interface StreamLimits {
  readonly perKey: number;
  readonly perTenant: number;
  /** What a refusal tells the client to wait: a stream's end cannot be foreseen, so this is a fixed pause. */
  readonly retryAfterSec: number;
}

/** The streams open now for the caller's principal and its tenant (the one asking not counted yet). */
export interface OpenStreamCounts {
  readonly key: number;
  readonly tenant: number;
}

export type StreamAdmission =
  | { readonly admit: true }
  | { readonly admit: false; readonly limit: 'key' | 'tenant'; readonly max: number; readonly retryAfterSec: number };

/**
 * Whether one more stream may open. The key's limit is checked first: a key over its own share
 * is told so, even when its tenant is full too, since closing its own streams is what helps.
 */
export function admitStream(open: OpenStreamCounts, limits: StreamLimits): StreamAdmission {
  if (open.key >= limits.perKey) return { admit: false, limit: 'key', max: limits.perKey, retryAfterSec: limits.retryAfterSec };
  if (open.tenant >= limits.perTenant) return { admit: false, limit: 'tenant', max: limits.perTenant, retryAfterSec: limits.retryAfterSec };
  return { admit: true };
}
