import type {
  Actor,
  CheckpointQueryResults,
  HumanRequest,
  RequestStatus,
  RunEvent,
  RunStatus,
  RunSummary,
  Scope,
} from '@spindle/contracts';

/** Response and request bodies of the `/v1` operations, as the gateway sends and accepts them. */

export interface Me {
  actor: Actor;
  tenant: { id: string; name: string; operator: boolean };
  scopes: Scope[];
  via: 'api_key' | 'oidc' | 'auth_off';
  expiresAt: string | null;
}

export interface AuthConfig {
  authOff: boolean;
  apiKeys: boolean;
  oidc: { issuer: string; clientId: string; scope: string; audience: string } | null;
}

export interface WorkflowSummary {
  name: string;
  latestVersion: number;
  createdAt: string;
  updatedAt: string;
}
export interface WorkflowVersion {
  name: string;
  version: number;
  definition: unknown;
  createdAt: string;
}
export interface WorkflowVersions {
  name: string;
  versions: Array<{ version: number; createdAt: string }>;
}
export interface WorkflowGraph {
  name: string;
  version: number;
  entry: string;
  nodes: Array<{ id: string; type: string; label: string; rank: number; order: number; parent?: string; lane?: string }>;
  edges: Array<{ from: string; to: string; handle: string; back: boolean; parent?: string; lane?: string }>;
  mermaid?: string;
}
/** `201` when a new version was stored, `200` (`created: false`) when the definition was unchanged. */
export interface SavedVersion {
  name: string;
  version: number;
  created: boolean;
}

export interface StoredAgent {
  name: string;
  version: number;
  spec: Record<string, unknown>;
  updatedAt: string;
}

export interface StartRunBody {
  input?: unknown;
  state?: Record<string, unknown>;
  parameters?: Record<string, unknown>;
  version?: number;
}
export interface RunAccepted {
  runId: string;
  workflow: { name: string; version: number };
  status: 'queued';
  location: string;
  eventsLocation: string;
}
export interface ForkBody {
  checkpointId?: string;
  state?: Record<string, unknown>;
}
export interface ForkAccepted {
  runId: string;
  forkedFrom: { runId: string; seq: number; checkpointId: string };
  status: 'queued';
  location: string;
  eventsLocation: string;
}
export interface RunList {
  runs: RunSummary[];
  nextCursor: string | null;
}
export interface RunListFilter {
  status?: RunStatus;
  workflow?: string;
  limit?: number;
  cursor?: string;
}
/** A waiting run also says where it is in its tenant's queue. */
export type RunDetails = RunSummary & { queue?: Record<string, unknown> };
export interface RunEventsPage {
  events: RunEvent[];
  lastSeq: number;
  terminal: boolean;
}
export interface CancelOutcome {
  runId: string;
  status: 'canceled' | 'cancel_requested';
}
export type CheckpointList = CheckpointQueryResults['listCheckpoints'];

export interface RequestList {
  requests: HumanRequest[];
  nextCursor?: string | null;
}
export interface RequestListFilter {
  status?: RequestStatus;
  limit?: number;
  cursor?: string;
}
export interface AnswerBody {
  approved?: boolean;
  text?: string;
  data?: unknown;
  decision?: 'approve' | 'reject';
  callId?: string;
  name?: string;
  argumentsHash?: string;
  message?: string;
  respondedBy?: string;
  definitionVersion?: number;
}
/** `recorded` (`202`, the run resumes) or `unchanged` (`200`, the same answer was there already). */
export interface AnswerOutcome {
  runId: string;
  requestId: string;
  status: 'recorded' | 'unchanged';
  seq: number;
}

export interface ApiKeyView {
  id: string;
  tenant: string;
  name: string;
  scopes: Scope[];
  createdAt: string;
  createdBy: Actor;
  expiresAt: string | null;
  revokedAt: string | null;
  revokedBy: Actor | null;
  lastUsedAt: string | null;
}
export interface NewKeyBody {
  name: string;
  scopes: Scope[];
  expiresAt?: string;
  tenant?: string;
}
/** `key` is the secret, shown in this answer only. */
export type CreatedKey = ApiKeyView & { key: string };

export interface TenantQuotas {
  maxRunning: number | null;
  startsPerMinute: number | null;
  dailyTokenBudget: number | null;
  dailyCostBudgetUsd: number | null;
}
export interface Tenant {
  id: string;
  name: string;
  operator: boolean;
  quotas: TenantQuotas;
  createdAt: string;
  updatedAt: string;
}

export interface AuditRecord {
  id: string;
  at: string;
  tenant: string;
  actor: Actor;
  action: string;
  target: { kind: string; id: string };
  source: string | null;
  detail: Record<string, unknown> | null;
}
export interface AuditFilter {
  action?: string;
  actor?: string;
  targetKind?: string;
  targetId?: string;
  since?: string;
  until?: string;
  tenant?: string;
  limit?: number;
  cursor?: string;
}
export interface AuditPage {
  entries: AuditRecord[];
  nextCursor: string | null;
}
