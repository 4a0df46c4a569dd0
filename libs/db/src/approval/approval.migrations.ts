import { sql, type Kysely, type Migration } from 'kysely';
import { projectionProgressMigrations, runProgressQueuedAtMigration } from '../projection-progress/projection-progress';

export const approvalMigrations: Record<string, Migration> = {
  // The same migration (and name) the service ran before it owned requests, so a schema
  // created then is simply migrated on from here.
  '0001_run_progress': projectionProgressMigrations['0001_run_progress'],
  '0002_requests': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('runs')
        .addColumn('run_id', 'text', (c) => c.primaryKey())
        .addColumn('workflow', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('requests')
        .addColumn('request_id', 'text', (c) => c.primaryKey())
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('workflow', 'text', (c) => c.notNull())
        .addColumn('node_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('input', 'approval')`))
        .addColumn('prompt', 'text', (c) => c.notNull())
        .addColumn('form', 'jsonb')
        .addColumn('call', 'jsonb')
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'answered', 'timed_out', 'canceled')`))
        .addColumn('requested_at', 'timestamptz', (c) => c.notNull())
        .addColumn('expires_at', 'timestamptz')
        .addColumn('answered_at', 'timestamptz')
        .addColumn('answered_by', 'text')
        .addColumn('answer', 'jsonb')
        .addColumn('seq', 'integer', (c) => c.notNull())
        .execute();
      // The inbox pages through (requested_at, request_id), optionally within one status.
      await db.schema.createIndex('requests_status_idx').on('requests').columns(['status', 'requested_at', 'request_id']).execute();
      await db.schema.createIndex('requests_requested_idx').on('requests').columns(['requested_at', 'request_id']).execute();
      await db.schema.createIndex('requests_run_idx').on('requests').column('run_id').execute();
      // The time-out sweeper looks only at pending requests with a deadline.
      await db.schema
        .createIndex('requests_expiry_idx')
        .on('requests')
        .column('expires_at')
        .where(sql.ref('status'), '=', 'pending')
        .execute();
      // Progress recorded before this projection existed would make a replay of the log skip
      // the requests it never stored; forgetting it lets the projection re-read each run.
      await db.deleteFrom('run_progress' as never).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('requests').execute();
      await db.schema.dropTable('runs').execute();
    },
  },
  '0003_tenants_and_actors': {
    async up(db: Kysely<unknown>) {
      // Runs queued before tenants belong to the default tenant.
      await sql`alter table runs add column tenant text not null default 'default'`.execute(db);
      await sql`alter table requests add column tenant text not null default 'default'`.execute(db);
      await sql`alter table runs alter column tenant drop default`.execute(db);
      await sql`alter table requests alter column tenant drop default`.execute(db);
      // Who answered was a bare string: it becomes the actor a log written then reads as.
      // (as recordedActorSchema reads it: `system:timeout` is the time-out, any other name a person's).
      await sql`alter table requests alter column answered_by type jsonb using case
        when answered_by is null then null
        when answered_by = 'system:timeout' then jsonb_build_object('kind', 'system', 'id', 'timeout', 'name', 'time-out')
        when answered_by like 'system:%' then jsonb_build_object('kind', 'system', 'id', answered_by, 'name', answered_by)
        else jsonb_build_object('kind', 'user', 'id', answered_by, 'name', answered_by) end`.execute(db);
      // The inbox is always one tenant's.
      await db.schema.dropIndex('requests_status_idx').execute();
      await db.schema.dropIndex('requests_requested_idx').execute();
      await db.schema
        .createIndex('requests_tenant_status_idx')
        .on('requests')
        .columns(['tenant', 'status', 'requested_at', 'request_id'])
        .execute();
      await db.schema
        .createIndex('requests_tenant_requested_idx')
        .on('requests')
        .columns(['tenant', 'requested_at', 'request_id'])
        .execute();
    },
  },
  '0004_run_progress_queued_at': runProgressQueuedAtMigration,
};
