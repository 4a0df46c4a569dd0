import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** Tables owned by the gateway: the workflow catalog and idempotency keys. */
export interface GatewayTables {
  workflows: WorkflowsTable;
  workflow_versions: WorkflowVersionsTable;
  idempotency_keys: IdempotencyKeysTable;
  agents: AgentsTable;
}

/** Named agents patterns can use by reference; a save bumps `version`. */
export interface AgentsTable {
  name: string;
  spec: ColumnType<unknown, string, string>;
  version: number;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface WorkflowsTable {
  name: string;
  latest_version: number;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Soft delete: versions stay, so runs can still name what they ran. */
  deleted_at: Timestamp | null;
}

export interface WorkflowVersionsTable {
  name: string;
  version: number;
  definition: ColumnType<unknown, string, string>;
  definition_hash: string;
  created_at: Timestamp;
}

export interface IdempotencyKeysTable {
  key: string;
  /** sha256 of the method, path and body the key was first used with. */
  request_hash: string;
  run_id: string;
  response: ColumnType<unknown, string, string>;
  created_at: Timestamp;
}
