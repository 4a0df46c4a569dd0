export { createDatabase, migrateToLatest, dropSchema, pingDatabase, serviceSchema } from './database';
export { PostgresDialect } from './postgres-dialect';
export { jsonRecordSet, recordSetNames } from './json-record-set';
export type { RecordSetColumns } from './json-record-set';
export { isDatabaseFault, asDatabaseFault, DATABASE_RETRY_AFTER_SEC } from './database-faults';
export type { DatabaseOptions } from './database';
export type {
  TraceTables,
  RunsTable,
  SpansTable,
  RunEventsTable,
  ScoresTable,
  ScoreConfigsTable,
  ScoreSettingsTable,
} from './trace/trace.tables';
export { traceMigrations } from './trace/trace.migrations';
export type {
  GatewayTables,
  TenantsTable,
  ApiKeysTable,
  AuditLogTable,
  StartBucketsTable,
  WorkflowsTable,
  WorkflowVersionsTable,
  IdempotencyKeysTable,
  AgentsTable,
  DatasetsTable,
  DatasetItemsTable,
  ExperimentsTable,
  ExperimentItemsTable,
  ReplaysTable,
  ReplayRunsTable,
} from './gateway/gateway.tables';
export { gatewayMigrations } from './gateway/gateway.migrations';
export { projectionProgressMigrations } from './projection-progress/projection-progress';
export type { ProjectionProgressTables } from './projection-progress/projection-progress';
export * from './checkpoint/index';
export * from './approval';
export { encodeKeysetCursor, decodeKeysetCursor, olderThanCursor } from './keyset-cursor';
export type { KeysetCursor } from './keyset-cursor';
export { encodeRunListCursor, decodeRunListCursor } from './run-list-cursor';
export type { RunListCursor } from './run-list-cursor';
export type {
  KnowledgeTables,
  KnowledgeBasesTable,
  KnowledgeBaseVersionsTable,
  KnowledgeDocumentsTable,
  KnowledgeChunksTable,
} from './knowledge/knowledge.tables';
export { coalescedWrites } from './coalesced-writes';
