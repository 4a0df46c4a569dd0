import type { Kysely, Migration } from 'kysely';

/**
 * How far a projection has applied each run's log: the last seq (gapless from 1) and that
 * event's type. Every projection has this table; the projection kit reads and moves it in the
 * same transaction as the projection's rows.
 */
export interface ProjectionProgressTables {
  run_progress: { run_id: string; last_seq: number; last_type: string };
}

export const projectionProgressMigrations: Record<string, Migration> = {
  '0001_run_progress': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('run_progress')
        .addColumn('run_id', 'text', (c) => c.primaryKey())
        .addColumn('last_seq', 'integer', (c) => c.notNull())
        .addColumn('last_type', 'text', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('run_progress').execute();
    },
  },
};
