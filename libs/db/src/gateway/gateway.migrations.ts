import type { Kysely, Migration } from 'kysely';

export const gatewayMigrations: Record<string, Migration> = {
  '0001_catalog_and_idempotency': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('workflows')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('latest_version', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
        .addColumn('deleted_at', 'timestamptz')
        .execute();
      await db.schema
        .createTable('workflow_versions')
        .addColumn('name', 'text', (c) => c.notNull().references('workflows.name'))
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('definition', 'jsonb', (c) => c.notNull())
        .addColumn('definition_hash', 'text', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addPrimaryKeyConstraint('workflow_versions_pk', ['name', 'version'])
        .execute();
      await db.schema
        .createTable('idempotency_keys')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('request_hash', 'text', (c) => c.notNull())
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('response', 'jsonb', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_at').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('idempotency_keys').execute();
      await db.schema.dropTable('workflow_versions').execute();
      await db.schema.dropTable('workflows').execute();
    },
  },
  '0002_agent_catalog': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('agents')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('spec', 'jsonb', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
        .addColumn('deleted_at', 'timestamptz')
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('agents').execute();
    },
  },
};
