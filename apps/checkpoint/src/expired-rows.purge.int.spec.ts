import type { TestingModule } from '@nestjs/testing';
import type { CheckpointTables } from '@spindle/db';
import { testNamespace } from '@spindle/testing';
import type { Kysely } from 'kysely';
import { eventually, HOUR_MS, openCheckpointSchema, removeStreams, startCheckpointService } from './checkpoint-test.fixture';
import { purgeExpiredRows } from './expired-rows.purge';

describe('purging expired checkpoints and node results', () => {
  const namespace = testNamespace();
  let store: Awaited<ReturnType<typeof openCheckpointSchema>>;
  let app: TestingModule | undefined;

  beforeAll(async () => {
    store = await openCheckpointSchema(namespace);
  });
  beforeEach(async () => {
    await store.db.deleteFrom('checkpoints').execute();
    await store.db.deleteFrom('node_results').execute();
  });
  afterAll(async () => {
    await app?.close();
    await removeStreams(namespace);
    await store?.drop();
  });

  it('removes only rows older than the TTL and reports how many of each', async () => {
    await seed(store.db, { 'cp-old': 169, 'cp-fresh': 167 }, { 'k-old': 200, 'k-older': 169.5, 'k-fresh': 1 });

    expect(await purgeExpiredRows(store.db, 168)).toEqual({ checkpoints: 1, nodeResults: 2 });
    expect(await remaining(store.db)).toEqual({ checkpoints: ['cp-fresh'], nodeResults: ['k-fresh'] });
    expect(await purgeExpiredRows(store.db, 168)).toEqual({ checkpoints: 0, nodeResults: 0 });

    // A shorter TTL cuts deeper.
    expect(await purgeExpiredRows(store.db, 0.5)).toEqual({ checkpoints: 1, nodeResults: 1 });
    expect(await remaining(store.db)).toEqual({ checkpoints: [], nodeResults: [] });
  });

  it('runs when the service starts', async () => {
    await seed(store.db, { 'cp-old': 3, 'cp-fresh': 1 }, { 'k-old': 3, 'k-fresh': 1 });
    app = await startCheckpointService(namespace, { settings: { ttlHours: 2 } });
    await eventually(async () => {
      const left = await remaining(store.db);
      if (left.checkpoints.length + left.nodeResults.length > 2) throw new Error('expired rows not purged yet');
    });
    expect(await remaining(store.db)).toEqual({ checkpoints: ['cp-fresh'], nodeResults: ['k-fresh'] });
  });
});

/** Rows saved / stored the given number of hours ago. */
async function seed(db: Kysely<CheckpointTables>, checkpointAges: Record<string, number>, nodeResultAges: Record<string, number>): Promise<void> {
  const ago = (hours: number) => new Date(Date.now() - hours * HOUR_MS);
  await db
    .insertInto('checkpoints')
    .values(Object.entries(checkpointAges).map(([id, hours], i) => ({ run_id: 'run-p', checkpoint_id: id, seq: i + 1, step: i, state: '{}', frontier: '[]', graph_hash: 'g', saved_at: ago(hours) })))
    .execute();
  await db
    .insertInto('node_results')
    .values(Object.entries(nodeResultAges).map(([key, hours]) => ({ key, run_id: 'run-p', node_id: 'n', output: '{}', handle: null, stored_at: ago(hours) })))
    .execute();
}

async function remaining(db: Kysely<CheckpointTables>) {
  return {
    checkpoints: (await db.selectFrom('checkpoints').select('checkpoint_id').orderBy('checkpoint_id').execute()).map((r) => r.checkpoint_id),
    nodeResults: (await db.selectFrom('node_results').select('key').orderBy('key').execute()).map((r) => r.key),
  };
}
