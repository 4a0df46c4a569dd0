import { sql, type Kysely, type Migration } from 'kysely';
import { knowledgeMigration } from '../knowledge/knowledge.migrations';
import { projectionProgressMigrations, runProgressQueuedAtMigration } from '../projection-progress/projection-progress';

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
  '0003_tenants_keys_audit': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('tenants')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('operator', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('max_running', 'integer')
        .addColumn('starts_per_minute', 'integer')
        .addColumn('daily_token_budget', 'bigint')
        .addColumn('daily_cost_budget_usd', 'double precision')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
        .execute();
      // Everything made before tenants belongs to `default`, the tenant that runs the platform.
      await sql`insert into tenants (id, name, operator, created_at, updated_at) values ('default', 'Default', true, now(), now())`.execute(
        db,
      );
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('scopes', 'jsonb', (c) => c.notNull())
        .addColumn('secret_hash', 'text', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('created_by', 'jsonb', (c) => c.notNull())
        .addColumn('expires_at', 'timestamptz')
        .addColumn('revoked_at', 'timestamptz')
        .addColumn('revoked_by', 'jsonb')
        .addColumn('last_used_at', 'timestamptz')
        .execute();
      await db.schema.createIndex('api_keys_tenant_idx').on('api_keys').columns(['tenant_id', 'created_at', 'id']).execute();
      await db.schema
        .createTable('audit_log')
        .addColumn('id', 'bigint', (c) => c.generatedAlwaysAsIdentity().primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('at', 'timestamptz', (c) => c.notNull())
        .addColumn('actor', 'jsonb', (c) => c.notNull())
        .addColumn('actor_id', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('target_kind', 'text', (c) => c.notNull())
        .addColumn('target_id', 'text', (c) => c.notNull())
        .addColumn('source', 'text')
        .addColumn('detail', 'jsonb')
        .execute();
      // Newest first within a tenant, optionally narrowed to an action, an actor or a target.
      await db.schema.createIndex('audit_tenant_idx').on('audit_log').columns(['tenant_id', 'id desc']).execute();
      await db.schema.createIndex('audit_action_idx').on('audit_log').columns(['tenant_id', 'action', 'id desc']).execute();
      await db.schema.createIndex('audit_actor_idx').on('audit_log').columns(['tenant_id', 'actor_id', 'id desc']).execute();
      await db.schema
        .createIndex('audit_target_idx')
        .on('audit_log')
        .columns(['tenant_id', 'target_kind', 'target_id', 'id desc'])
        .execute();
      await db.schema
        .createTable('start_buckets')
        .addColumn('tenant_id', 'text', (c) => c.primaryKey())
        .addColumn('tokens', 'double precision', (c) => c.notNull())
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
        .execute();

      // Names are unique per tenant: the tenant joins every key of the catalog and of idempotency.
      for (const table of ['workflows', 'workflow_versions', 'agents', 'idempotency_keys']) {
        await sql`alter table ${sql.table(table)} add column tenant_id text not null default 'default' references tenants(id)`.execute(db);
        await sql`alter table ${sql.table(table)} alter column tenant_id drop default`.execute(db);
      }
      await sql`alter table workflow_versions drop constraint workflow_versions_name_fkey`.execute(db);
      await sql`alter table workflow_versions drop constraint workflow_versions_pk`.execute(db);
      await sql`alter table workflows drop constraint workflows_pkey`.execute(db);
      await sql`alter table workflows add primary key (tenant_id, name)`.execute(db);
      await sql`alter table workflow_versions add primary key (tenant_id, name, version)`.execute(db);
      await sql`alter table workflow_versions add foreign key (tenant_id, name) references workflows (tenant_id, name)`.execute(db);
      await sql`alter table agents drop constraint agents_pkey`.execute(db);
      await sql`alter table agents add primary key (tenant_id, name)`.execute(db);
      await sql`alter table idempotency_keys drop constraint idempotency_keys_pkey`.execute(db);
      await sql`alter table idempotency_keys add primary key (tenant_id, key)`.execute(db);
    },
  },
  '0004_admission': {
    async up(db: Kysely<unknown>) {
      await projectionProgressMigrations['0001_run_progress'].up(db);
      await db.schema
        .createTable('run_admissions')
        .addColumn('run_id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('queued_at', 'timestamptz', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('waiting', 'admitted', 'running', 'paused')`))
        .addColumn('admitted_at', 'timestamptz')
        .addColumn('trace', 'jsonb')
        .execute();
      // A tenant's waiting runs, oldest first; the counts per tenant of what waits and what runs.
      await db.schema
        .createIndex('run_admissions_queue_idx')
        .on('run_admissions')
        .columns(['tenant_id', 'state', 'queued_at', 'run_id'])
        .execute();
      await db.schema.createIndex('run_admissions_state_idx').on('run_admissions').column('state').execute();
      await db.schema
        .createTable('tenant_dispatch')
        .addColumn('tenant_id', 'text', (c) => c.primaryKey())
        .addColumn('last_admitted_at', 'timestamptz', (c) => c.notNull())
        .execute();
    },
  },
  '0005_run_progress_queued_at': runProgressQueuedAtMigration,
  '0006_agent_versions': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('agent_versions')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('spec', 'jsonb', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addPrimaryKeyConstraint('agent_versions_pk', ['tenant_id', 'name', 'version'])
        .addForeignKeyConstraint('agent_versions_agent_fk', ['tenant_id', 'name'], 'agents', ['tenant_id', 'name'])
        .execute();
      // History starts with what each agent is now: earlier versions were overwritten in place.
      await sql`insert into agent_versions (tenant_id, name, version, spec, created_at)
                select tenant_id, name, version, spec, updated_at from agents`.execute(db);
    },
  },
  '0007_threads': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('threads')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('metadata', 'jsonb', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('created_by', 'jsonb', (c) => c.notNull())
        .addColumn('next_position', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema.createIndex('threads_tenant_idx').on('threads').columns(['tenant_id', 'created_at desc', 'id desc']).execute();
      await db.schema
        .createTable('thread_runs')
        .addColumn('run_id', 'text', (c) => c.primaryKey())
        .addColumn('thread_id', 'text', (c) => c.notNull().references('threads.id').onDelete('cascade'))
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('workflow', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('strategy', 'text', (c) => c.notNull())
        .addColumn('queued_at', 'timestamptz', (c) => c.notNull())
        // A run waiting for its turn (`pending`): what to start it with, and who asked.
        .addColumn('request', 'jsonb')
        // Why a pending run could not be started (it never reached the log).
        .addColumn('error', 'jsonb')
        // A completed run's end state: the thread's state is its last completed run's.
        .addColumn('output', 'jsonb')
        // When a gateway took a pending run to start it (`starting`): one gone quiet for long is looked at again.
        .addColumn('starting_at', 'timestamptz')
        .execute();
      await db.schema.createIndex('thread_runs_thread_idx').on('thread_runs').columns(['thread_id', 'position']).execute();
    },
  },
  '0008_webhooks': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('webhooks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('events', 'jsonb', (c) => c.notNull())
        .addColumn('workflow', 'text')
        .addColumn('thread_id', 'text')
        .addColumn('schedule_id', 'text')
        .addColumn('named_only', 'boolean', (c) => c.notNull().defaultTo(false))
        // Signs every delivery (HMAC-SHA256); shown once, when the subscription is made.
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('created_by', 'jsonb', (c) => c.notNull())
        .addColumn('deleted_at', 'timestamptz')
        .execute();
      await db.schema.createIndex('webhooks_tenant_idx').on('webhooks').columns(['tenant_id', 'created_at desc', 'id desc']).execute();
      // What a delivery needs to know of a run whose `run.queued` came in an earlier batch.
      await db.schema
        .createTable('webhook_runs')
        .addColumn('run_id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('workflow', 'text', (c) => c.notNull())
        .addColumn('workflow_version', 'integer', (c) => c.notNull())
        .addColumn('thread_id', 'text')
        .addColumn('schedule_id', 'text')
        // The subscriptions the run named.
        .addColumn('webhook_ids', 'jsonb')
        .execute();
      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id'))
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('payload', 'jsonb', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'delivered', 'dead', 'canceled')`))
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('delivered_at', 'timestamptz')
        .addUniqueConstraint('webhook_deliveries_event_unique', ['webhook_id', 'event_id'])
        .execute();
      await db.schema.createIndex('webhook_deliveries_due_idx').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
      await db.schema
        .createIndex('webhook_deliveries_webhook_idx')
        .on('webhook_deliveries')
        .columns(['webhook_id', 'created_at desc', 'id desc'])
        .execute();
      await db.schema.createIndex('webhook_deliveries_run_idx').on('webhook_deliveries').column('run_id').execute();
      await db.schema
        .createTable('webhook_attempts')
        .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('at', 'timestamptz', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('error', 'text')
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        // The first 2 KiB of the answer, for whoever debugs the receiver.
        .addColumn('response', 'text')
        .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_id', 'attempt'])
        .execute();
    },
  },
  '0009_schedules': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('schedules')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('cron', 'text', (c) => c.notNull())
        .addColumn('timezone', 'text', (c) => c.notNull())
        .addColumn('workflow', 'text', (c) => c.notNull())
        // Null: the workflow's latest version at each firing.
        .addColumn('version', 'integer')
        .addColumn('input', 'jsonb')
        .addColumn('overlap', 'text', (c) => c.notNull())
        .addColumn('catch_up', 'text', (c) => c.notNull())
        .addColumn('paused', 'boolean', (c) => c.notNull().defaultTo(false))
        // The firing planned next; firings are made from it up to now.
        .addColumn('next_fire_at', 'timestamptz')
        .addColumn('last_run_id', 'text')
        // Who made it: its runs are started as them.
        .addColumn('caller', 'jsonb', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('deleted_at', 'timestamptz')
        .execute();
      await db.schema
        .createIndex('schedules_due_idx')
        .on('schedules')
        .columns(['next_fire_at'])
        .where(sql.ref('deleted_at'), 'is', null)
        .execute();
      // One row per firing time: whoever inserts it fires it, so two gateways never fire one twice.
      await db.schema
        .createTable('schedule_firings')
        .addColumn('schedule_id', 'text', (c) => c.notNull().references('schedules.id'))
        .addColumn('fire_at', 'timestamptz', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('run_id', 'text')
        .addColumn('detail', 'text')
        .addColumn('decided_at', 'timestamptz')
        .addPrimaryKeyConstraint('schedule_firings_pk', ['schedule_id', 'fire_at'])
        .execute();
    },
  },
  '0010_admission_enqueue': {
    // A start's admission in one round trip (it was four: begin, lock, the statement, commit).
    // Each statement of a plpgsql function takes a new snapshot, so the counts after the lock see
    // every admission committed before it was granted, as in the transaction this replaces.
    async up(db: Kysely<unknown>) {
      await sql`
        create function admission_enqueue(
          p_lock bigint, p_run_id text, p_tenant text, p_queued_at timestamptz, p_trace jsonb, p_window integer, p_default_max integer
        ) returns text language plpgsql volatile as $fn$
        declare
          outcome text;
        begin
          perform pg_advisory_xact_lock(p_lock);
          with decided as (
            select
              (select count(*) from run_admissions where state = 'waiting') = 0
              and (select count(*) from run_admissions where state = 'admitted') < p_window
              and (select count(*) from run_admissions where tenant_id = p_tenant and state in ('admitted', 'running'))
                < coalesce((select max_running from tenants where id = p_tenant), p_default_max) as now
          ),
          added as (
            insert into run_admissions (run_id, tenant_id, queued_at, state, admitted_at, trace)
            select p_run_id, p_tenant, p_queued_at,
              case when decided.now then 'admitted' else 'waiting' end, case when decided.now then now() end, p_trace
            from decided
            -- The projection may have queued the run first, without its trace context: keep the gateway's.
            on conflict (run_id) do update set trace = coalesce(run_admissions.trace, excluded.trace)
              where run_admissions.state = 'waiting' and run_admissions.trace is null
            returning (xmax = 0) as inserted, state
          ),
          served as (
            insert into tenant_dispatch (tenant_id, last_admitted_at)
            select p_tenant, now() from added where inserted and state = 'admitted'
            on conflict (tenant_id) do update set last_admitted_at = excluded.last_admitted_at
          )
          select case when inserted then state else 'exists' end into outcome from added;
          return coalesce(outcome, 'exists');
        end
        $fn$`.execute(db);
    },
  },
  '0011_files': {
    // A tenant's uploaded files (bytes in the object store by sha256) and which runs refer to them.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('files')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('file_id', 'text', (c) => c.notNull())
        .addColumn('sha256', 'text', (c) => c.notNull())
        .addColumn('media_type', 'text', (c) => c.notNull())
        .addColumn('bytes', 'bigint', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('created_by', 'jsonb', (c) => c.notNull())
        // Bumped by a re-upload and by every run start that names the file: the collector's grace counts from it.
        .addColumn('last_used_at', 'timestamptz', (c) => c.notNull())
        .addPrimaryKeyConstraint('files_pk', ['tenant_id', 'file_id'])
        .execute();
      // The collector asks "does any tenant's file still name these bytes?".
      await db.schema.createIndex('files_sha256_idx').on('files').column('sha256').execute();
      await db.schema
        .createTable('file_references')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('file_id', 'text', (c) => c.notNull())
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('file_references_pk', ['tenant_id', 'file_id', 'run_id'])
        // A file a run refers to cannot be deleted: the key makes a delete racing a new reference fail, not dangle.
        .addForeignKeyConstraint('file_references_file_fk', ['tenant_id', 'file_id'], 'files', ['tenant_id', 'file_id'])
        .execute();
      await db.schema.createIndex('file_references_run_idx').on('file_references').column('run_id').execute();
    },
  },
  '0012_knowledge': knowledgeMigration,
  '0013_evaluations': {
    // The evaluators a run's definition carried (while it runs), and each judgement due once it completed.
    async up(db: Kysely<unknown>) {
      await sql`create table evaluation_runs (
        run_id text primary key,
        tenant_id text not null,
        workflow text not null,
        workflow_version integer not null,
        evaluators jsonb not null
      )`.execute(db);
      await sql`create table evaluations (
        evaluation_id text primary key,
        run_id text not null,
        tenant_id text not null,
        workflow text not null,
        workflow_version integer not null,
        evaluator jsonb not null,
        status text not null,
        attempts integer not null default 0,
        next_attempt_at timestamptz not null,
        completed_at timestamptz not null,
        error text,
        score_id text
      )`.execute(db);
      await sql`create index evaluations_due_idx on evaluations (next_attempt_at) where status = 'pending'`.execute(db);
      await sql`create index evaluations_run_idx on evaluations (run_id)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table evaluations, evaluation_runs`.execute(db);
    },
  },
  '0014_datasets': {
    // A tenant's versioned datasets: an item is in every version from the one that added it until one removed it.
    async up(db: Kysely<unknown>) {
      await sql`create table datasets (
        tenant_id text not null references tenants(id),
        name text not null,
        description text,
        version integer not null default 0,
        created_at timestamptz not null,
        created_by jsonb not null,
        updated_at timestamptz not null,
        primary key (tenant_id, name)
      )`.execute(db);
      await sql`create table dataset_items (
        tenant_id text not null,
        dataset text not null,
        item_id text not null,
        input jsonb not null,
        expected jsonb,
        metadata jsonb,
        source_run_id text,
        added_in integer not null,
        removed_in integer,
        created_at timestamptz not null,
        primary key (tenant_id, dataset, item_id),
        foreign key (tenant_id, dataset) references datasets (tenant_id, name) on delete cascade
      )`.execute(db);
      await sql`create index dataset_items_source_run_idx on dataset_items (source_run_id) where source_run_id is not null`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table dataset_items, datasets`.execute(db);
    },
  },
  '0015_experiments': {
    // A dataset version run through a workflow version: the experiment, and each item's run and judgement.
    async up(db: Kysely<unknown>) {
      await sql`create table experiments (
        experiment_id text primary key,
        tenant_id text not null references tenants(id),
        name text,
        dataset text not null,
        dataset_version integer not null,
        workflow text not null,
        workflow_version integer not null,
        parameters jsonb,
        evaluators jsonb not null,
        concurrency integer not null,
        max_cost_usd double precision,
        status text not null,
        caller jsonb not null,
        created_at timestamptz not null,
        ended_at timestamptz
      )`.execute(db);
      await sql`create index experiments_tenant_idx on experiments (tenant_id, created_at desc)`.execute(db);
      await sql`create index experiments_running_idx on experiments (created_at) where status = 'running'`.execute(db);
      await sql`create table experiment_items (
        experiment_id text not null references experiments(experiment_id) on delete cascade,
        item_id text not null,
        position integer not null,
        input jsonb not null,
        expected jsonb,
        run_id text,
        status text not null,
        output jsonb,
        error jsonb,
        usage jsonb,
        wall_ms double precision,
        scores jsonb not null default '{}',
        evaluator_errors jsonb not null default '{}',
        primary key (experiment_id, item_id)
      )`.execute(db);
      await sql`create index experiment_items_status_idx on experiment_items (experiment_id, status, position)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table experiment_items, experiments`.execute(db);
    },
  },
  '0016_replays': {
    // Recorded runs replayed through a workflow version: the batch, and each recorded run's replay run.
    async up(db: Kysely<unknown>) {
      await sql`create table replays (
        replay_id text primary key,
        tenant_id text not null references tenants(id),
        workflow text not null,
        workflow_version integer not null,
        on_divergence text not null,
        caller jsonb not null,
        created_at timestamptz not null
      )`.execute(db);
      await sql`create index replays_tenant_idx on replays (tenant_id, created_at desc)`.execute(db);
      await sql`create table replay_runs (
        replay_id text not null references replays(replay_id) on delete cascade,
        position integer not null,
        source_run_id text not null,
        run_id text not null,
        status text not null,
        error jsonb,
        primary key (replay_id, position)
      )`.execute(db);
      await sql`create index replay_runs_pending_idx on replay_runs (replay_id) where status = 'pending'`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table replay_runs, replays`.execute(db);
    },
  },
  '0017_evaluation_judges': {
    // A workflow evaluator's own run (the judge), when it started, and what it cost.
    async up(db: Kysely<unknown>) {
      await sql`alter table evaluations add column judge_run_id text, add column judge_started_at timestamptz,
        add column cost_usd double precision`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`alter table evaluations drop column judge_run_id, drop column judge_started_at, drop column cost_usd`.execute(db);
    },
  },
};
