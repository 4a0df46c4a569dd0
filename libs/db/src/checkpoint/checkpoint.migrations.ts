import { sql, type Kysely, type Migration } from 'kysely';
import { projectionProgressMigrations, runProgressQueuedAtMigration } from '../projection-progress/projection-progress';

export const checkpointMigrations: Record<string, Migration> = {
  // Same name and body as before the checkpoint tables existed, so schemas migrated then stay valid.
  '0001_run_progress': projectionProgressMigrations['0001_run_progress'],
  '0002_checkpoints': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('checkpoints')
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('checkpoint_id', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('step', 'integer', (c) => c.notNull())
        .addColumn('state', 'jsonb', (c) => c.notNull())
        .addColumn('frontier', 'jsonb', (c) => c.notNull())
        .addColumn('graph_hash', 'text', (c) => c.notNull())
        .addColumn('saved_at', 'timestamptz', (c) => c.notNull())
        .addPrimaryKeyConstraint('checkpoints_pk', ['run_id', 'checkpoint_id'])
        .execute();
      // A run's checkpoints in order, and its latest one.
      await db.schema.createIndex('checkpoints_run_seq_idx').on('checkpoints').columns(['run_id', 'seq']).execute();
      // The TTL purge deletes by age.
      await db.schema.createIndex('checkpoints_saved_at_idx').on('checkpoints').column('saved_at').execute();

      await db.schema
        .createTable('node_results')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('node_id', 'text', (c) => c.notNull())
        .addColumn('output', 'jsonb', (c) => c.notNull())
        .addColumn('handle', 'text')
        .addColumn('stored_at', 'timestamptz', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('node_results_stored_at_idx').on('node_results').column('stored_at').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('node_results').execute();
      await db.schema.dropTable('checkpoints').execute();
    },
  },
  '0003_checkpoint_changes': {
    async up(db: Kysely<unknown>) {
      // A checkpoint keeps what changed; the state is the run's initial state with the changes laid over it.
      await sql`alter table checkpoints alter column state drop not null`.execute(db);
      await db.schema.alterTable('checkpoints').addColumn('changes', 'jsonb').execute();
      await db.schema
        .createTable('initial_states')
        .addColumn('run_id', 'text', (c) => c.primaryKey())
        .addColumn('state', 'jsonb', (c) => c.notNull())
        .addColumn('queued_at', 'timestamptz', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('initial_states').execute();
      await db.schema.alterTable('checkpoints').dropColumn('changes').execute();
    },
  },
  '0004_run_progress_queued_at': runProgressQueuedAtMigration,
  '0005_waiting_runs': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('waiting_runs')
        .addColumn('run_id', 'text', (c) => c.primaryKey())
        .addColumn('since', 'timestamptz', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('waiting_runs').execute();
    },
  },
};
