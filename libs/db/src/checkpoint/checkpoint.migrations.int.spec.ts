import { testEnv, testNamespace } from '@spindle/testing';
import { sql, type Kysely } from 'kysely';
import { createDatabase, dropSchema, migrateToLatest, serviceSchema } from '../database';
import { projectionProgressMigrations } from '../projection-progress/projection-progress';
import { checkpointMigrations } from './checkpoint.migrations';
import type { CheckpointTables } from './checkpoint.tables';

describe('checkpoint migrations', () => {
  const schema = serviceSchema('checkpoint', testNamespace());
  let db: Kysely<CheckpointTables>;
  beforeAll(() => {
    db = createDatabase<CheckpointTables>({ url: testEnv().databaseUrl, schema, maxConnections: 2 });
  });
  afterAll(async () => {
    await dropSchema(db as Kysely<unknown>, schema);
    await db.destroy();
  });

  it('upgrades a schema migrated before the checkpoint tables existed, keeping its progress', async () => {
    await migrateToLatest(db as Kysely<unknown>, schema, projectionProgressMigrations);
    await db.insertInto('run_progress').values({ run_id: 'run-1', last_seq: 7, last_type: 'run.completed' }).execute();

    await migrateToLatest(db as Kysely<unknown>, schema, checkpointMigrations);
    await migrateToLatest(db as Kysely<unknown>, schema, checkpointMigrations);

    const tables = (await db.introspection.getTables()).filter((t) => t.schema === schema && !t.name.startsWith('kysely_'));
    expect(tables.map((t) => t.name).sort()).toEqual(['checkpoints', 'initial_states', 'node_results', 'run_progress', 'waiting_runs']);
    // Progress from before the retention clock starts it now.
    expect(await db.selectFrom('run_progress').selectAll().execute()).toEqual([
      { run_id: 'run-1', last_seq: 7, last_type: 'run.completed', queued_at: expect.any(Date) },
    ]);
    const { rows: applied } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
    expect(applied).toEqual([
      { name: '0001_run_progress' },
      { name: '0002_checkpoints' },
      { name: '0003_checkpoint_changes' },
      { name: '0004_run_progress_queued_at' },
      { name: '0005_waiting_runs' },
    ]);
  });

  it('keys checkpoints by (run_id, checkpoint_id) and node results by key', async () => {
    const checkpoint = {
      run_id: 'run-1',
      checkpoint_id: 'cp-1',
      seq: 3,
      step: 0,
      state: '{}',
      frontier: '[]',
      graph_hash: 'g',
      saved_at: new Date(),
    };
    await db.insertInto('checkpoints').values(checkpoint).execute();
    await expect(
      db
        .insertInto('checkpoints')
        .values({ ...checkpoint, seq: 4 })
        .execute(),
    ).rejects.toMatchObject({ code: '23505' });
    const result = { key: 'k', run_id: 'run-1', node_id: 'n', output: '{}', handle: null, stored_at: new Date() };
    await db.insertInto('node_results').values(result).execute();
    await expect(
      db
        .insertInto('node_results')
        .values({ ...result, node_id: 'other' })
        .execute(),
    ).rejects.toMatchObject({ code: '23505' });
  });
});
