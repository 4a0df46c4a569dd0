import type { Actor, HumanRequest, RunEvent, RunSummary, RunTrace } from '@spindle/contracts';
import { storedCredential } from '../auth/session-storage';

/** A problem+json answer from the gateway, kept whole so a form can show the field at fault. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors: Array<{ field: string; message: string }> = [],
  ) {
    super(detail);
  }
}

let credentialRejected: (problem: ApiProblem) => void = () => undefined;

/** Called when the gateway answers `401` to the signed-in credential (revoked key, expired token). */
export function onCredentialRejected(listener: (problem: ApiProblem) => void): void {
  credentialRejected = listener;
}

/**
 * `fetch` with the signed-in credential as `Authorization: Bearer …` (none when authentication
 * is off). A `401` throws, and ends the session unless the credential changed meanwhile (a
 * request of the previous sign-in must not sign out the next one).
 */
export async function authorizedFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const credential = storedCredential();
  const headers = new Headers(init.headers);
  if (credential) headers.set('authorization', `Bearer ${credential}`);
  const res = await fetch(path, { ...init, headers });
  if (res.status !== 401) return res;
  const problem = await problemOf(res);
  if (credential !== undefined && storedCredential() === credential) credentialRejected(problem);
  throw problem;
}

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  const headers = { 'content-type': 'application/json', ...(init?.headers ?? {}) };
  const res = await authorizedFetch(path, { ...init, headers });
  if (!res.ok) throw await problemOf(res);
  return (res.status === 204 ? undefined : await res.json().catch(() => undefined)) as T;
}

async function problemOf(res: Response): Promise<ApiProblem> {
  const body = await res.json().catch(() => undefined);
  const p = (body ?? {}) as { code?: string; detail?: string; errors?: Array<{ field: string; message: string }> };
  return new ApiProblem(res.status, p.code ?? 'internal', p.detail ?? res.statusText, p.errors);
}

/** `GET /v1/auth/config`: how to sign in (public). */
export interface AuthConfig {
  authOff: boolean;
  apiKeys: boolean;
  oidc: OidcConsoleConfig | null;
}
export interface OidcConsoleConfig {
  issuer: string;
  clientId: string;
  scope: string;
  audience: string;
}

/** `GET /v1/me`: who the credential is. */
export interface Me {
  actor: Actor;
  tenant: { id: string; name: string; operator: boolean };
  scopes: string[];
  via: 'api_key' | 'oidc' | 'auth_off';
}

export interface WorkflowSummary {
  name: string;
  latestVersion: number;
  updatedAt?: string;
}
export interface GraphView {
  name: string;
  version: number;
  entry: string;
  nodes: Array<{ id: string; type: string; label: string; rank: number; order: number; parent?: string; lane?: string }>;
  edges: Array<{ from: string; to: string; handle: string; back: boolean; parent?: string; lane?: string }>;
}

export const api = {
  authConfig: async (): Promise<AuthConfig> => {
    const res = await fetch('/v1/auth/config');
    if (!res.ok) throw await problemOf(res);
    return (await res.json()) as AuthConfig;
  },
  /** Checks a credential before it is kept: a refusal is the caller's to show, not a sign-out. */
  me: async (credential?: string): Promise<Me> => {
    const res = await fetch('/v1/me', credential ? { headers: { authorization: `Bearer ${credential}` } } : {});
    if (!res.ok) throw await problemOf(res);
    return (await res.json()) as Me;
  },
  workflows: () => call<{ workflows: WorkflowSummary[] }>('/v1/workflows'),
  versions: (name: string) =>
    call<{ versions: Array<{ version: number; createdAt: string }> }>(`/v1/workflows/${encodeURIComponent(name)}/versions`),
  graph: (name: string, version?: number) =>
    call<GraphView>(`/v1/workflows/${encodeURIComponent(name)}/graph${version ? `?version=${version}` : ''}`),
  workflow: (name: string) => call<{ definition: { parameters?: Record<string, unknown> } }>(`/v1/workflows/${encodeURIComponent(name)}`),
  startRun: (name: string, body: { input?: unknown; state?: Record<string, unknown>; parameters?: unknown; version?: number }) =>
    call<{ runId: string }>(`/v1/workflows/${encodeURIComponent(name)}/runs`, { method: 'POST', body: JSON.stringify(body) }),
  runs: (filter: { workflow?: string; status?: string; cursor?: string }) => {
    const q = new URLSearchParams(Object.entries(filter).filter(([, v]) => v) as Array<[string, string]>);
    q.set('limit', '50');
    return call<{ runs: RunSummary[]; nextCursor: string | null }>(`/v1/runs?${q}`);
  },
  run: (id: string) => call<RunSummary>(`/v1/runs/${id}`),
  events: (id: string, afterSeq = 0) =>
    call<{ events: RunEvent[]; lastSeq: number; terminal: boolean }>(`/v1/runs/${id}/events${afterSeq ? `?after=${afterSeq}` : ''}`),
  trace: (id: string) => call<RunTrace>(`/v1/runs/${id}/trace`),
  cancel: (id: string) => call<{ status: string }>(`/v1/runs/${id}/cancel`, { method: 'POST', body: '{}' }),
  inbox: () => call<{ requests: HumanRequest[] }>('/v1/requests?status=pending&limit=200'),
  runRequests: (id: string) => call<{ requests: HumanRequest[] }>(`/v1/runs/${id}/requests`),
  respond: (runId: string, requestId: string, body: Record<string, unknown>) =>
    call<{ status: string }>(`/v1/runs/${runId}/requests/${requestId}/respond`, {
      method: 'POST',
      // Who answers is the signed-in principal; `respondedBy` is for a key's client relaying a person.
      body: JSON.stringify(body),
    }),
};
