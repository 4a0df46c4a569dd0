import { EMPTY_RUN_CLOCK, foldRunClock, runClockDurations, RUN_CLOCK_EVENT_TYPES, type RunClock } from '@spindle/contracts';
import { sql, type Kysely, type Migration } from 'kysely';
import { projectionProgressMigrations, runProgressQueuedAtMigration } from '../projection-progress/projection-progress';

export const traceMigrations: Record<string, Migration> = {
  '0001_runs_spans_events': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('runs')
        .addColumn('run_id', 'text', (c) => c.primaryKey())
        .addColumn('workflow', 'text', (c) => c.notNull())
        .addColumn('workflow_version', 'integer', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('queued_at', 'timestamptz', (c) => c.notNull())
        .addColumn('started_at', 'timestamptz')
        .addColumn('ended_at', 'timestamptz')
        .addColumn('duration_ms', 'double precision')
        .addColumn('input_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('output_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('total_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('error', 'jsonb')
        .addColumn('last_seq', 'integer', (c) => c.notNull())
        .addColumn('root_span_id', 'text', (c) => c.notNull())
        .addColumn('forked_from', 'jsonb')
        .execute();
      // Cursor paging walks (queued_at desc, run_id desc), optionally within a workflow or status.
      await db.schema.createIndex('runs_queued_idx').on('runs').columns(['queued_at desc', 'run_id desc']).execute();
      await db.schema.createIndex('runs_workflow_idx').on('runs').columns(['workflow', 'queued_at desc', 'run_id desc']).execute();
      await db.schema.createIndex('runs_status_idx').on('runs').columns(['status', 'queued_at desc', 'run_id desc']).execute();

      await db.schema
        .createTable('spans')
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('span_id', 'text', (c) => c.notNull())
        .addColumn('parent_span_id', 'text')
        .addColumn('node_id', 'text')
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('node_type', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('started_at', 'timestamptz')
        .addColumn('ended_at', 'timestamptz')
        .addColumn('duration_ms', 'double precision')
        .addColumn('start_seq', 'integer')
        .addColumn('end_seq', 'integer')
        .addColumn('input', 'jsonb')
        .addColumn('output', 'jsonb')
        .addColumn('error', 'jsonb')
        .addColumn('usage', 'jsonb')
        .addColumn('model', 'text')
        .addColumn('iteration', 'integer')
        .addColumn('branch_id', 'text')
        .addPrimaryKeyConstraint('spans_pk', ['run_id', 'span_id'])
        .execute();

      await db.schema
        .createTable('run_events')
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('at', 'timestamptz', (c) => c.notNull())
        .addColumn('stream_seq', 'bigint', (c) => c.notNull())
        .addColumn('event', 'jsonb', (c) => c.notNull())
        .addPrimaryKeyConstraint('run_events_pk', ['run_id', 'seq'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('run_events').execute();
      await db.schema.dropTable('spans').execute();
      await db.schema.dropTable('runs').execute();
    },
  },
  '0002_run_cost': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('runs')
        .addColumn('cost_usd', 'double precision', (c) => c.notNull().defaultTo(0))
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('runs').dropColumn('cost_usd').execute();
    },
  },
  '0003_run_progress': {
    async up(db: Kysely<unknown>) {
      await projectionProgressMigrations['0001_run_progress'].up(db);
      // Events reach the projection in seq order from the projection kit, which does not carry stream positions.
      await sql`alter table run_events alter column stream_seq drop not null`.execute(db);
      // Where each run's projection stood: its last applied event (the projection kit moves on from there).
      await sql`insert into run_progress (run_id, last_seq, last_type)
        select r.run_id, r.last_seq, e.type from runs r join run_events e on e.run_id = r.run_id and e.seq = r.last_seq`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('run_progress').execute();
    },
  },
  '0004_tenants_and_actors': {
    async up(db: Kysely<unknown>) {
      // Runs queued before tenants belong to the default tenant.
      await sql`alter table runs add column tenant text not null default 'default'`.execute(db);
      await sql`alter table runs alter column tenant drop default`.execute(db);
      await sql`alter table runs add column started_by jsonb, add column canceled_by jsonb`.execute(db);
      // Every list is one tenant's, newest first.
      await db.schema.dropIndex('runs_queued_idx').execute();
      await db.schema.dropIndex('runs_workflow_idx').execute();
      await db.schema.dropIndex('runs_status_idx').execute();
      await db.schema.createIndex('runs_tenant_queued_idx').on('runs').columns(['tenant', 'queued_at desc', 'run_id desc']).execute();
      await db.schema
        .createIndex('runs_tenant_workflow_idx')
        .on('runs')
        .columns(['tenant', 'workflow', 'queued_at desc', 'run_id desc'])
        .execute();
      await db.schema
        .createIndex('runs_tenant_status_idx')
        .on('runs')
        .columns(['tenant', 'status', 'queued_at desc', 'run_id desc'])
        .execute();
    },
  },
  '0005_usage_details': {
    async up(db: Kysely<unknown>) {
      // Cached and reasoning tokens (parts of input and output), and calls left out of cost_usd for want of a price.
      await sql`alter table runs
        add column cached_input_tokens bigint not null default 0,
        add column cache_write_tokens bigint not null default 0,
        add column reasoning_tokens bigint not null default 0,
        add column unpriced_calls bigint not null default 0`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`alter table runs drop column cached_input_tokens, drop column cache_write_tokens,
        drop column reasoning_tokens, drop column unpriced_calls`.execute(db);
    },
  },
  '0006_run_progress_queued_at': runProgressQueuedAtMigration,
  '0007_run_search': {
    async up(db: Kysely<unknown>) {
      await sql`alter table runs
        add column parameters jsonb,
        add column error_code text generated always as (error ->> 'code') stored,
        add column search tsvector not null default ''::tsvector`.execute(db);
      // Runs projected before: their parameters from the stored log, their words from the root span.
      await sql`update runs r set parameters = e.event -> 'data' -> 'parameters'
        from run_events e where e.run_id = r.run_id and e.seq = 1 and e.type = 'run.queued'`.execute(db);
      await sql`update runs r set search =
          jsonb_to_tsvector('simple', coalesce(s.input, 'null'), '["string", "numeric"]') ||
          jsonb_to_tsvector('simple', coalesce(s.output, 'null'), '["string", "numeric"]')
        from spans s where s.run_id = r.run_id and s.span_id = r.root_span_id
          and octet_length(coalesce(s.input::text, '') || coalesce(s.output::text, '')) < 262144`.execute(db);
      // Each sort walks its own index within the tenant, in either direction; the filters narrow with theirs.
      await sql`create index runs_tenant_duration_idx on runs (tenant, (coalesce(duration_ms, -1)), run_id)`.execute(db);
      await sql`create index runs_tenant_tokens_idx on runs (tenant, total_tokens, run_id)`.execute(db);
      await sql`create index runs_tenant_cost_idx on runs (tenant, cost_usd, run_id)`.execute(db);
      await sql`create index runs_tenant_error_idx on runs (tenant, error_code, queued_at desc, run_id desc)
        where error_code is not null`.execute(db);
      await sql`create index runs_tenant_run_id_prefix_idx on runs (tenant, run_id text_pattern_ops)`.execute(db);
      await sql`create index runs_search_idx on runs using gin (search)`.execute(db);
      await sql`create index runs_parameters_idx on runs using gin (parameters jsonb_path_ops)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`alter table runs drop column parameters, drop column error_code, drop column search`.execute(db);
      await sql`drop index runs_tenant_duration_idx, runs_tenant_tokens_idx, runs_tenant_cost_idx, runs_tenant_run_id_prefix_idx`.execute(
        db,
      );
    },
  },
  '0008_run_forks': {
    async up(db: Kysely<unknown>) {
      // A run's forks, for its lineage (`GET /v1/runs/{id}/lineage`): walked down from a root within the tenant.
      await sql`create index runs_tenant_forked_from_idx on runs (tenant, (forked_from ->> 'runId')) where forked_from is not null`.execute(
        db,
      );
    },
    async down(db: Kysely<unknown>) {
      await sql`drop index runs_tenant_forked_from_idx`.execute(db);
    },
  },
  '0009_run_wall_working': {
    async up(db: Kysely<unknown>) {
      // `duration_ms` held the runner's last stretch (10 ms for a run that waited 20 min for a person):
      // a run now stores its wall and working time (libs/contracts durations) and the clock they fold from.
      await sql`alter table runs rename column duration_ms to wall_ms`.execute(db);
      await sql`alter table runs
        add column working_ms double precision,
        add column waited_ms double precision not null default 0,
        add column waiting_since timestamptz`.execute(db);
      await backfillRunClocks(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`alter table runs drop column working_ms, drop column waited_ms, drop column waiting_since`.execute(db);
      await sql`alter table runs rename column wall_ms to duration_ms`.execute(db);
    },
  },
  '0010_scores': {
    async up(db: Kysely<unknown>) {
      // Scores are written here, not folded from the log (a run's log ends with its terminal event):
      // a rebuild's truncate of runs, spans and run_events leaves them, an erase of the run takes them.
      await sql`create table scores (
        score_id text primary key,
        tenant text not null,
        run_id text not null,
        span_id text,
        name text not null,
        data_type text not null,
        value jsonb not null,
        value_number double precision,
        comment text,
        given_by jsonb not null,
        evaluator jsonb,
        created_at timestamptz not null
      )`.execute(db);
      await sql`create index scores_run_idx on scores (run_id, created_at)`.execute(db);
      await sql`create index scores_tenant_name_idx on scores (tenant, name, run_id)`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table scores`.execute(db);
    },
  },
  '0011_score_configs': {
    // What a tenant's score of a name must be, and whether a name needs a config: every stored score is checked against them.
    async up(db: Kysely<unknown>) {
      await sql`create table score_configs (
        tenant text not null,
        name text not null,
        data_type text not null,
        min double precision,
        max double precision,
        categories jsonb,
        description text,
        updated_at timestamptz not null,
        primary key (tenant, name)
      )`.execute(db);
      await sql`create table score_settings (
        tenant text primary key,
        strict boolean not null
      )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table score_settings, score_configs`.execute(db);
    },
  },
};

/** Runs projected before 0009: their clocks folded again from the stored log, a run at a time. */
async function backfillRunClocks(db: Kysely<unknown>): Promise<void> {
  const types = sql.join(RUN_CLOCK_EVENT_TYPES.map((t) => sql`${t}`));
  const rows = await sql<{ run_id: string; type: string; at: Date }>`select run_id, type, at from run_events
    where type in (${types}) order by run_id, seq`.execute(db);
  const clocks = new Map<string, RunClock>();
  for (const row of rows.rows)
    clocks.set(row.run_id, foldRunClock(clocks.get(row.run_id) ?? EMPTY_RUN_CLOCK, { type: row.type, at: row.at.toISOString() }));
  for (const [runId, clock] of clocks) {
    const ended = clock.endMs !== null ? runClockDurations(clock, clock.endMs) : undefined;
    const waitingSince = clock.waitingSinceMs === null ? null : new Date(clock.waitingSinceMs).toISOString();
    await sql`update runs set wall_ms = ${ended?.wallMs ?? null}, working_ms = ${ended?.workingMs ?? null},
      waited_ms = ${clock.waitedMs}, waiting_since = ${waitingSince}::timestamptz where run_id = ${runId}`.execute(db);
  }
}
