import { testEnv, testNamespace } from '@spindle/testing';
import type { Kysely } from 'kysely';
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
      'requests_requested_idx',
      'requests_run_idx',
      'requests_status_idx',
    ]);
  });

  it('refuses a request row with an unknown status', async () => {
    const row = {
      request_id: 'r1',
      run_id: 'run',
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
