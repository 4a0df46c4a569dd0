export { approvalMigrations } from './approval.migrations';
export type { ApprovalTables, ApprovalRunsTable, RequestsTable } from './approval.tables';
