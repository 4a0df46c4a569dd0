import { testEnv, testNamespace } from '@spindle/testing';
import { sql, type Kysely } from 'kysely';
import { createDatabase, dropSchema, migrateToLatest, serviceSchema } from '../database';
import { projectionProgressMigrations } from '../projection-progress/projection-progress';
import { approvalMigrations } from './approval.migrations';
import type { ApprovalTables } from './approval.tables';

describe('approval migrations', () => {
  const schema = serviceSchema('approval', testNamespace());
  let db: Kysely<ApprovalTables>;
  beforeAll(() => {
    db = createDatabase<ApprovalTables>({ url: testEnv().databaseUrl, schema, maxConnections: 2 });
  });
  afterAll(async () => {
    await dropSchema(db as Kysely<unknown>, schema);
    await db.destroy();
  });

  it('migrates a schema made when the service kept only run_progress, forgetting that progress', async () => {
    await migrateToLatest(db as Kysely<unknown>, schema, projectionProgressMigrations);
    await db.insertInto('run_progress').values({ run_id: 'old-run', last_seq: 7, last_type: 'run.completed' }).execute();

    await migrateToLatest(db as Kysely<unknown>, schema, approvalMigrations);

    const tables = (await db.introspection.getTables())
      .filter((t) => t.schema === schema)
      .map((t) => t.name)
      .sort();
    expect(tables).toEqual(['requests', 'run_progress', 'runs']);
    expect(await db.selectFrom('run_progress').selectAll().execute()).toEqual([]);
    const indexes = await db
      .selectFrom('pg_indexes' as never)
      .select(['indexname' as never])
      .where('schemaname' as never, '=', schema as never)
      .where('tablename' as never, '=', 'requests' as never)
      .execute();
    expect(indexes.map((i) => (i as { indexname: string }).indexname).sort()).toEqual([
      'requests_expiry_idx',
      'requests_pkey',
      'requests_run_idx',
      'requests_tenant_requested_idx',
      'requests_tenant_status_idx',
    ]);
  });

  it('refuses a request row with an unknown status', async () => {
    const row = {
      request_id: 'r1',
      run_id: 'run',
      tenant: 'default',
      workflow: 'w',
      node_id: 'n',
      kind: 'input' as const,
      prompt: 'p',
      form: null,
      call: null,
      mode: 'single',
      status: 'lost',
      requested_at: new Date(),
      expires_at: null,
      answered_at: null,
      answered_by: null,
      answer: null,
      seq: 3,
    };
    await expect(db.insertInto('requests').values(row).execute()).rejects.toThrow(/check constraint/);
    await db
      .insertInto('requests')
      .values({ ...row, status: 'pending' })
      .execute();
    expect(await db.selectFrom('requests').select(['request_id', 'status']).execute()).toEqual([{ request_id: 'r1', status: 'pending' }]);
  });
});

describe('approval migrations of a schema with requests from before tenants', () => {
  const schema = serviceSchema('approval', testNamespace());
  let db: Kysely<ApprovalTables>;
  beforeAll(() => {
    db = createDatabase<ApprovalTables>({ url: testEnv().databaseUrl, schema, maxConnections: 2 });
  });
  afterAll(async () => {
    await dropSchema(db as Kysely<unknown>, schema);
    await db.destroy();
  });

  it('puts old runs and requests in the default tenant and reads who answered as the actor the log reads', async () => {
    const { '0003_tenants_and_actors': _later, '0004_run_progress_queued_at': _latest, ...before } = approvalMigrations;
    await migrateToLatest(db as Kysely<unknown>, schema, before);
    await sql`insert into runs (run_id, workflow, status) values ('run', 'w', 'active')`.execute(db);
    for (const [id, by] of [
      ['a', 'ada'],
      ['t', 'system:timeout'],
      ['p', null],
    ] as const) {
      await sql`insert into requests (request_id, run_id, workflow, node_id, kind, prompt, mode, status, requested_at, answered_by, seq)
        values (${id}, 'run', 'w', 'n', 'input', 'p', 'single', ${by ? 'answered' : 'pending'}, now(), ${by}, 3)`.execute(db);
    }

    await migrateToLatest(db as Kysely<unknown>, schema, approvalMigrations);

    expect(await db.selectFrom('runs').select(['run_id', 'tenant']).execute()).toEqual([{ run_id: 'run', tenant: 'default' }]);
    const rows = await db.selectFrom('requests').select(['request_id', 'tenant', 'answered_by']).orderBy('request_id').execute();
    expect(rows).toEqual([
      { request_id: 'a', tenant: 'default', answered_by: { kind: 'user', id: 'ada', name: 'ada' } },
      { request_id: 'p', tenant: 'default', answered_by: null },
      { request_id: 't', tenant: 'default', answered_by: { kind: 'system', id: 'timeout', name: 'time-out' } },
    ]);
  });
});
