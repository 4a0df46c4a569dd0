import { z } from 'zod';

/**
 * What a principal may do. One route needs at most one scope (the gateway's route table);
 * `admin` covers keys, tenants and the audit log, nothing else.
 */
export const SCOPES = ['runs:read', 'runs:write', 'requests:answer', 'workflows:write', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];
export const scopeSchema = z.enum(SCOPES);

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

/** Lower-case letters, digits and `-`, starting with a letter: safe in a URL, a header and a log line. */
export const TENANT_ID_PATTERN = /^[a-z][a-z0-9-]{0,62}$/;
export const tenantIdSchema = z.string().regex(TENANT_ID_PATTERN, 'not a tenant id (a-z, 0-9 and -, starting with a letter; at most 63)');

/** The tenant of everything made before tenants existed, and of a development install. */
export const DEFAULT_TENANT = 'default';

/**
 * Who did something, as the log records it: an API key (its id), a person signed in through the
 * identity provider (the token's subject), or Spindle itself (a request that timed out). Never a
 * secret. `onBehalfOf` is what a key's client said about the person it acts for (not verified).
 */
export const actorSchema = z.object({
  kind: z.enum(['key', 'user', 'system']),
  id: z.string().min(1).max(200),
  name: z.string().max(200),
  onBehalfOf: z.string().max(200).optional(),
});
export type Actor = z.infer<typeof actorSchema>;

/**
 * Logs written before identity name who answered with a bare string: the name a client gave
 * (read as a person of that name) or `system:<what>` (a time-out).
 */
export const recordedActorSchema = z.preprocess((value) => {
  if (typeof value !== 'string') return value;
  if (value === 'system:timeout') return { kind: 'system', id: 'timeout', name: 'time-out' };
  return { kind: value.startsWith('system:') ? 'system' : 'user', id: value || 'unknown', name: value };
}, actorSchema);

/** An authenticated caller of the gateway. */
export interface Principal {
  readonly actor: Actor;
  readonly tenant: string;
  readonly scopes: ReadonlySet<Scope>;
  /** The principal's tenant runs the platform: it may manage other tenants. */
  readonly operator: boolean;
  /** How the caller proved who it is. */
  readonly via: 'api_key' | 'oidc' | 'auth_off';
  /** When the credential stops working (a key's expiry, a token's `exp`); none for a key without one. */
  readonly expiresAt?: Date;
}
