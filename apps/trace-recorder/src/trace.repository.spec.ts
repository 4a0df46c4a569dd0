import type { TraceTables } from '@spindle/db';
import { encodeRunListCursor } from '@spindle/db';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { lineageQuery, listRunsQuery } from './trace.repository';

// Compiles only: no connection.
const db = new Kysely<TraceTables>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

const newest = { sort: 'started', order: 'desc' } as const;

describe('listRunsQuery', () => {
  it('walks (queued_at, run_id) downwards from the cursor with a row comparison the paging indexes serve', () => {
    const cursor = encodeRunListCursor({ ...newest, value: '2025-03-01T10:00:00.123456+00:00', runId: 'run-9' });
    const query = listRunsQuery(db, { tenant: 'acme', workflow: 'support', status: 'completed', ...newest, limit: 20, cursor }).compile();
    expect(query.sql).toBe(
      'select *, to_json(queued_at) #>> \'{}\' as "sort_value" from "runs" ' +
        'where "tenant" = $1 and not starts_with(workflow, \'_\') and "workflow" = $2 and "status" = $3 ' +
        'and (queued_at, run_id) < ($4::timestamptz, $5) ' +
        'order by queued_at desc, run_id desc limit $6',
    );
    expect(query.parameters).toEqual(['acme', 'support', 'completed', '2025-03-01T10:00:00.123456+00:00', 'run-9', 21]);
  });

  it('orders by the sort key exactly as its index has it, upwards from the cursor when ascending', () => {
    const cursor = encodeRunListCursor({ sort: 'duration', order: 'asc', value: '-1', runId: 'r1' });
    const query = listRunsQuery(db, { tenant: 'acme', sort: 'duration', order: 'asc', limit: 5, cursor }).compile();
    expect(query.sql).toBe(
      'select *, coalesce(wall_ms, -1)::text as "sort_value" from "runs" where "tenant" = $1 ' +
        "and not starts_with(workflow, '_') and (coalesce(wall_ms, -1), run_id) > ($2::double precision, $3) " +
        'order by coalesce(wall_ms, -1) asc, run_id asc limit $4',
    );
  });

  it('matches words as prefixes or the run id as a prefix with like-wildcards escaped, and parameters as text or JSON', () => {
    const query = listRunsQuery(db, { tenant: 'acme', q: 'Parcel 50%_off', parameter: 'tier=2', ...newest, limit: 5 }).compile();
    expect(query.sql).toContain(
      "(parameters @> $2::jsonb or parameters @> $3::jsonb) and (run_id like $4 or search @@ to_tsquery('simple', $5))",
    );
    expect(query.parameters).toEqual(
      expect.arrayContaining(['{"tier":"2"}', '{"tier":2}', 'Parcel 50\\%\\_off%', 'parcel:* & 50:* & off:*']),
    );
  });

  it('leaves out the filters and the cursor nobody asked for, and the internal runs unless asked to include them', () => {
    const query = listRunsQuery(db, { tenant: 'acme', ...newest, limit: 50 }).compile();
    expect(query.sql).toBe(
      'select *, to_json(queued_at) #>> \'{}\' as "sort_value" from "runs" where "tenant" = $1 ' +
        "and not starts_with(workflow, '_') order by queued_at desc, run_id desc limit $2",
    );
    expect(listRunsQuery(db, { tenant: 'acme', ...newest, limit: 50, internal: 'include' }).compile().sql).toBe(
      'select *, to_json(queued_at) #>> \'{}\' as "sort_value" from "runs" where "tenant" = $1 ' +
        'order by queued_at desc, run_id desc limit $2',
    );
  });
});

describe('lineageQuery', () => {
  it('walks up forked_from and down the tenant forks index, within the tenant at every step, one row past the cap', () => {
    const { sql, parameters } = lineageQuery('acme', 'run-9').compile(db);
    expect(sql.replace(/\s+/g, ' ').trim()).toBe(
      'with recursive up(run_id, parent, height) as ( ' +
        "select run_id, forked_from ->> 'runId', 0 from runs where run_id = $1 and tenant = $2 " +
        "union all select r.run_id, r.forked_from ->> 'runId', up.height + 1 from runs r join up on r.run_id = up.parent " +
        'where r.tenant = $3 and up.height < $4 ), ' +
        'root as (select run_id from up order by height desc limit 1), ' +
        'down(run_id, depth) as ( select run_id, 0 from root union all select r.run_id, down.depth + 1 ' +
        "from runs r join down on r.forked_from ->> 'runId' = down.run_id where r.tenant = $5 and down.depth < $6 ) " +
        'select runs.*, down.depth from down join runs on runs.run_id = down.run_id ' +
        'order by down.depth, runs.queued_at, runs.run_id limit $7',
    );
    expect(parameters).toEqual(['run-9', 'acme', 'acme', 64, 'acme', 64, 501]);
  });
});
