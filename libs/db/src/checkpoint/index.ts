export type { CheckpointTables, CheckpointsTable, NodeResultsTable, InitialStatesTable, WaitingRunsTable } from './checkpoint.tables';
export { checkpointMigrations } from './checkpoint.migrations';
