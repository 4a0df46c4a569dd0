import { sql, type ColumnType, type Kysely, type Migration } from 'kysely';

/**
 * How far a projection has applied each run's log: the last seq (gapless from 1) and that
 * event's type. Every projection has this table; the projection kit reads and moves it in the
 * same transaction as the projection's rows.
 */
export interface ProjectionProgressTables {
  run_progress: {
    run_id: string;
    last_seq: number;
    last_type: string;
    /** When the run was queued (its seq 1's `at`): the retention clock of every projection. */
    queued_at: ColumnType<Date, Date | string | undefined, never>;
  };
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

/** The retention clock of `run_progress`: each service lists it after its own latest migration. */
export const runProgressQueuedAtMigration: Migration = {
  async up(db: Kysely<unknown>) {
    // Runs applied before this column existed start their retention clock now.
    await sql`alter table run_progress add column queued_at timestamptz not null default now()`.execute(db);
    await sql`create index run_progress_queued_idx on run_progress (queued_at)`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`alter table run_progress drop column queued_at`.execute(db);
  },
};
