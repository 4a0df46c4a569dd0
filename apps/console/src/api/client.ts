import type { HumanRequest, RunEvent, RunSummary, RunTrace } from '@spindle/contracts';

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

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(path, { ...init, headers: { 'content-type': 'application/json', ...(init?.headers ?? {}) } });
  const body = res.status === 204 ? undefined : await res.json().catch(() => undefined);
  if (!res.ok) {
    const p = (body ?? {}) as { code?: string; detail?: string; errors?: Array<{ field: string; message: string }> };
    throw new ApiProblem(res.status, p.code ?? 'internal', p.detail ?? res.statusText, p.errors);
  }
  return body as T;
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
  workflows: () => call<{ workflows: WorkflowSummary[] }>('/v1/workflows'),
  versions: (name: string) =>
    call<{ versions: Array<{ version: number; createdAt: string }> }>(`/v1/workflows/${encodeURIComponent(name)}/versions`),
  graph: (name: string, version?: number) =>
    call<GraphView>(`/v1/workflows/${encodeURIComponent(name)}/graph${version ? `?version=${version}` : ''}`),
  startRun: (name: string, body: { input?: unknown; state?: Record<string, unknown>; version?: number }) =>
    call<{ runId: string }>(`/v1/workflows/${encodeURIComponent(name)}/runs`, { method: 'POST', body: JSON.stringify(body) }),
  runs: (filter: { workflow?: string; status?: string; cursor?: string }) => {
    const q = new URLSearchParams(Object.entries(filter).filter(([, v]) => v) as Array<[string, string]>);
    q.set('limit', '50');
    return call<{ runs: RunSummary[]; nextCursor: string | null }>(`/v1/runs?${q}`);
  },
  run: (id: string) => call<RunSummary>(`/v1/runs/${id}`),
  events: (id: string) => call<{ events: RunEvent[]; lastSeq: number; terminal: boolean }>(`/v1/runs/${id}/events`),
  trace: (id: string) => call<RunTrace>(`/v1/runs/${id}/trace`),
  cancel: (id: string) => call<{ status: string }>(`/v1/runs/${id}/cancel`, { method: 'POST', body: '{}' }),
  inbox: () => call<{ requests: HumanRequest[] }>('/v1/requests?status=pending&limit=200'),
  runRequests: (id: string) => call<{ requests: HumanRequest[] }>(`/v1/runs/${id}/requests`),
  respond: (runId: string, requestId: string, body: Record<string, unknown>) =>
    call<{ status: string }>(`/v1/runs/${runId}/requests/${requestId}/respond`, {
      method: 'POST',
      body: JSON.stringify({ respondedBy: 'console', ...body }),
    }),
};
