export type { CheckpointTables, CheckpointsTable, NodeResultsTable, InitialStatesTable } from './checkpoint.tables';
export { checkpointMigrations } from './checkpoint.migrations';
