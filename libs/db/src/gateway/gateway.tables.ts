import type { ColumnType, Generated } from 'kysely';
import type { KnowledgeTables } from '../knowledge/knowledge.tables';
import type { ProjectionProgressTables } from '../projection-progress/projection-progress';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type Json = ColumnType<unknown, string, string>;

/** Tables owned by the gateway: tenants, API keys, the audit log, the catalogs and idempotency keys. */
export interface GatewayTables extends ProjectionProgressTables, KnowledgeTables {
  tenants: TenantsTable;
  api_keys: ApiKeysTable;
  audit_log: AuditLogTable;
  start_buckets: StartBucketsTable;
  workflows: WorkflowsTable;
  workflow_versions: WorkflowVersionsTable;
  idempotency_keys: IdempotencyKeysTable;
  agents: AgentsTable;
  agent_versions: AgentVersionsTable;
  threads: ThreadsTable;
  thread_runs: ThreadRunsTable;
  webhooks: WebhooksTable;
  webhook_runs: WebhookRunsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  schedules: SchedulesTable;
  schedule_firings: ScheduleFiringsTable;
  run_admissions: RunAdmissionsTable;
  tenant_dispatch: TenantDispatchTable;
  files: FilesTable;
  file_references: FileReferencesTable;
  evaluation_runs: EvaluationRunsTable;
  evaluations: EvaluationsTable;
  datasets: DatasetsTable;
  dataset_items: DatasetItemsTable;
  experiments: ExperimentsTable;
  experiment_items: ExperimentItemsTable;
  replays: ReplaysTable;
  replay_runs: ReplayRunsTable;
}

/** A tenant and its quotas; a null quota takes the gateway's default. */
export interface TenantsTable {
  id: string;
  name: string;
  /** The tenant that runs the platform: its admins manage every tenant. */
  operator: boolean;
  max_running: number | null;
  starts_per_minute: number | null;
  /** pg returns bigint as text. */
  daily_token_budget: ColumnType<string | null, number | null, number | null>;
  daily_cost_budget_usd: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  tenant_id: string;
  name: string;
  /** Scope names, a JSON array. */
  scopes: Json;
  /** SHA-256 of the secret; the secret itself is never stored. */
  secret_hash: string;
  created_at: Timestamp;
  created_by: Json;
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
  revoked_by: Json | null;
  last_used_at: Timestamp | null;
}

/** Who changed what: configuration, keys, tenants, and every run a person started, canceled, forked or answered. */
export interface AuditLogTable {
  id: Generated<string>;
  tenant_id: string;
  at: Timestamp;
  actor: Json;
  actor_id: string;
  action: string;
  target_kind: string;
  target_id: string;
  /** The client's address, as the gateway saw it (behind a trusted proxy: X-Forwarded-For). */
  source: string | null;
  detail: Json | null;
}

/** A tenant's run-start token bucket (starts per minute). */
export interface StartBucketsTable {
  tenant_id: string;
  tokens: number;
  updated_at: Timestamp;
}

/** Named agents patterns can use by reference; a save bumps `version`. */
export interface AgentsTable {
  tenant_id: string;
  name: string;
  spec: ColumnType<unknown, string, string>;
  version: number;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

/** Conversations across runs: what the caller made; their runs and state are in `thread_runs`. */
export interface ThreadsTable {
  id: string;
  tenant_id: string;
  metadata: Json;
  created_at: Timestamp;
  created_by: Json;
  /** The position the thread's next run gets. */
  next_position: Generated<number>;
}

/** A thread's runs in order; `pending` ones wait (enqueued) for the runs before them to end. */
export interface ThreadRunsTable {
  run_id: string;
  thread_id: string;
  position: number;
  workflow: string;
  status: string;
  strategy: string;
  queued_at: Timestamp;
  request: ColumnType<unknown, string | null, string | null>;
  error: ColumnType<unknown, string | null, string | null>;
  output: ColumnType<unknown, string | null, string | null>;
  starting_at: Timestamp | null;
}

/** Every spec an agent has had, numbered as `agents.version` was when it was saved. */
export interface AgentVersionsTable {
  tenant_id: string;
  name: string;
  version: number;
  spec: ColumnType<unknown, string, string>;
  created_at: Timestamp;
}

export interface WorkflowsTable {
  tenant_id: string;
  name: string;
  latest_version: number;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Soft delete: versions stay, so runs can still name what they ran. */
  deleted_at: Timestamp | null;
}

export interface WorkflowVersionsTable {
  tenant_id: string;
  name: string;
  version: number;
  definition: ColumnType<unknown, string, string>;
  definition_hash: string;
  created_at: Timestamp;
}

export interface IdempotencyKeysTable {
  tenant_id: string;
  key: string;
  /** sha256 of the method, path and body the key was first used with. */
  request_hash: string;
  run_id: string;
  response: ColumnType<unknown, string, string>;
  created_at: Timestamp;
}

/**
 * Runs not ended yet, as the admission sees them: `waiting` for a turn, `admitted` (the start
 * command is in the runners' queue), `running`, `paused` (waiting for a person). A run that ends leaves.
 */
export interface RunAdmissionsTable {
  run_id: string;
  tenant_id: string;
  queued_at: Timestamp;
  state: 'waiting' | 'admitted' | 'running' | 'paused';
  admitted_at: Timestamp | null;
  /** W3C trace context of the request that queued it, for the start command sent later. */
  trace: Json | null;
}

/** When each tenant last had a run admitted: the round robin serves the longest-waiting tenant first. */
export interface TenantDispatchTable {
  tenant_id: string;
  last_admitted_at: Timestamp;
}

/** A tenant's subscription to run events: every run, or one workflow's, or one thread's. */
export interface WebhooksTable {
  id: string;
  tenant_id: string;
  url: string;
  events: Json;
  workflow: string | null;
  thread_id: string | null;
  schedule_id: string | null;
  named_only: Generated<boolean>;
  secret: string;
  created_at: Timestamp;
  created_by: Json;
  deleted_at: Timestamp | null;
}

export interface WebhookRunsTable {
  run_id: string;
  tenant_id: string;
  workflow: string;
  workflow_version: number;
  thread_id: string | null;
  schedule_id: string | null;
  webhook_ids: ColumnType<unknown, string | null, string | null>;
}

/** One event for one subscription, retried until it is answered with a 2xx or its time runs out. */
export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  run_id: string;
  event_id: string;
  event_type: string;
  payload: Json;
  status: 'pending' | 'delivered' | 'dead' | 'canceled';
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  created_at: Timestamp;
  delivered_at: Timestamp | null;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  attempt: number;
  at: Timestamp;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response: string | null;
}

/** Runs on a cron: what to start, how often, and what to do when the last one has not ended. */
export interface SchedulesTable {
  id: string;
  tenant_id: string;
  cron: string;
  timezone: string;
  workflow: string;
  version: number | null;
  input: ColumnType<unknown, string | null, string | null>;
  overlap: string;
  catch_up: string;
  paused: Generated<boolean>;
  next_fire_at: Timestamp | null;
  last_run_id: string | null;
  caller: Json;
  created_at: Timestamp;
  deleted_at: Timestamp | null;
}

/** One firing time of a schedule: `pending` until started (a run), skipped, or failed to start. */
export interface ScheduleFiringsTable {
  schedule_id: string;
  fire_at: Timestamp;
  outcome: string;
  run_id: string | null;
  detail: string | null;
  decided_at: Timestamp | null;
}

/** A tenant's uploaded file: its bytes are in the object store under `sha256` (shared by every tenant that uploaded them). */
export interface FilesTable {
  tenant_id: string;
  file_id: string;
  sha256: string;
  media_type: string;
  /** pg returns bigint as text. */
  bytes: ColumnType<string, number, number>;
  name: string | null;
  created_at: Timestamp;
  created_by: Json;
  last_used_at: Timestamp;
}

/** A run refers to a file (its log carries the file's reference): the file is kept while any row names it. */
export interface FileReferencesTable {
  tenant_id: string;
  file_id: string;
  run_id: string;
}

/** A running run whose definition carried evaluators that sampled it in (until it ends). */
export interface EvaluationRunsTable {
  run_id: string;
  tenant_id: string;
  workflow: string;
  workflow_version: number;
  evaluators: Json;
}

/** One evaluator's judgement of one completed run: pending until it is a score (`done`) or cannot be (`failed`). */
export interface EvaluationsTable {
  /** `<runId>:<score name>`: one per evaluator and run, however often the log is folded. */
  evaluation_id: string;
  run_id: string;
  tenant_id: string;
  workflow: string;
  workflow_version: number;
  evaluator: Json;
  status: 'pending' | 'done' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  /** When the run completed (its event's `at`). */
  completed_at: Timestamp;
  error: string | null;
  score_id: string | null;
  /** A workflow evaluator's judge run, once started (its id is the evaluation's, so a retried start makes one). */
  judge_run_id: ColumnType<string | null, string | null | undefined, string | null>;
  judge_started_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** What the judge run cost, once it ended. */
  cost_usd: ColumnType<number | null, number | null | undefined, number | null>;
}

/** A tenant's dataset; `version` is its latest (0 before any item). */
export interface DatasetsTable {
  tenant_id: string;
  name: string;
  description: string | null;
  version: Generated<number>;
  created_at: Timestamp;
  created_by: Json;
  updated_at: Timestamp;
}

/** An item of a dataset, in every version from `added_in` until `removed_in`. */
export interface DatasetItemsTable {
  tenant_id: string;
  dataset: string;
  item_id: string;
  input: Json;
  expected: Json | null;
  metadata: Json | null;
  source_run_id: string | null;
  added_in: number;
  removed_in: number | null;
  created_at: Timestamp;
}

/** An experiment: a dataset version run through a workflow version, `concurrency` runs at once, within `max_cost_usd`. */
export interface ExperimentsTable {
  experiment_id: string;
  tenant_id: string;
  name: string | null;
  dataset: string;
  dataset_version: number;
  workflow: string;
  workflow_version: number;
  parameters: Json | null;
  evaluators: Json;
  concurrency: number;
  max_cost_usd: number | null;
  status: string;
  /** Who started it: every item's run is started as them. */
  caller: Json;
  created_at: Timestamp;
  ended_at: Timestamp | null;
}

/** One item of an experiment: its copy of the dataset item, its run, and what the run gave and was judged. */
export interface ExperimentItemsTable {
  experiment_id: string;
  item_id: string;
  position: number;
  input: Json;
  expected: Json | null;
  run_id: string | null;
  status: string;
  output: Json | null;
  error: Json | null;
  usage: Json | null;
  wall_ms: number | null;
  scores: ColumnType<unknown, string | undefined, string>;
  evaluator_errors: ColumnType<unknown, string | undefined, string>;
}

/** Recorded runs replayed through a workflow version (`on_divergence`: `stop` or `call`). */
export interface ReplaysTable {
  replay_id: string;
  tenant_id: string;
  workflow: string;
  workflow_version: number;
  on_divergence: string;
  /** Who asked: every replay run is started as them. */
  caller: Json;
  created_at: Timestamp;
}

/** One recorded run of a replay and the run that replays it. */
export interface ReplayRunsTable {
  replay_id: string;
  position: number;
  source_run_id: string;
  /** Chosen when the replay is made; the run exists once the dispatcher started it (`status: started`). */
  run_id: string;
  /** `pending` (not started yet), `started`, or `failed` (its start was refused for good: `error`). */
  status: string;
  error: Json | null;
}
