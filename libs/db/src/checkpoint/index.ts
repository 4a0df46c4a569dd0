export type { CheckpointTables, CheckpointsTable, NodeResultsTable } from './checkpoint.tables';
export { checkpointMigrations } from './checkpoint.migrations';
