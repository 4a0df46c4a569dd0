import type { TestingModule } from '@nestjs/testing';
import type { CheckpointTables } from '@spindle/db';
import { testNamespace } from '@spindle/testing';
import type { Kysely } from 'kysely';
import type { RunEventDraft } from '@spindle/contracts';
import {
  appliedUpTo,
  checkpointSaved,
  eventually,
  HOUR_MS,
  openCheckpointSchema,
  queued,
  removeStreams,
  startCheckpointService,
  started,
  testBus,
  writeRun,
} from './checkpoint-test.fixture';
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

  it('removes the checkpoints of runs whose last one is older than the TTL, and older node results, and reports how many', async () => {
    // A run's checkpoints build on each other: one still in use keeps its older ones.
    await seed(
      store.db,
      { 'old/cp-1': 170, 'old/cp-2': 169, 'fresh/cp-1': 167, 'long/cp-1': 200, 'long/cp-2': 1 },
      { 'k-old': 200, 'k-older': 169.5, 'k-fresh': 1 },
    );

    expect(await purgeExpiredRows(store.db, 168)).toEqual({ checkpoints: 2, nodeResults: 2 });
    expect(await remaining(store.db)).toEqual({ checkpoints: ['fresh/cp-1', 'long/cp-1', 'long/cp-2'], nodeResults: ['k-fresh'] });
    expect(await purgeExpiredRows(store.db, 168)).toEqual({ checkpoints: 0, nodeResults: 0 });

    // A shorter TTL cuts deeper.
    expect(await purgeExpiredRows(store.db, 0.5)).toEqual({ checkpoints: 3, nodeResults: 1 });
    expect(await remaining(store.db)).toEqual({ checkpoints: [], nodeResults: [] });
  });

  it('runs when the service starts', async () => {
    await seed(store.db, { 'old/cp-old': 3, 'fresh/cp-fresh': 1 }, { 'k-old': 3, 'k-fresh': 1 });
    app = await startCheckpointService(namespace, { settings: { ttlHours: 2 } });
    await eventually(async () => {
      const left = await remaining(store.db);
      if (left.checkpoints.length + left.nodeResults.length > 2) throw new Error('expired rows not purged yet');
    });
    expect(await remaining(store.db)).toEqual({ checkpoints: ['fresh/cp-fresh'], nodeResults: ['k-fresh'] });
  });

  it('keeps the checkpoints of a run waiting for a person, however old, until it resumes or ends', async () => {
    app ??= await startCheckpointService(namespace, { settings: { ttlHours: 2 } });
    const bus = await testBus(namespace, 'purge-waiting-test');
    try {
      // Both runs checkpointed an hour ago; `waits` then asked a person, `ended` finished.
      const anHourAgo = () => new Date(Date.now() - HOUR_MS);
      const awaiting: RunEventDraft = { type: 'run.awaiting', spanId: 'root', path: 'root', data: { reason: 'input' } };
      const completed: RunEventDraft = { type: 'run.completed', spanId: 'root', path: 'root', data: { output: {}, durationMs: 1, usage } };
      const waits = await writeRun(bus, 'waits', [queued(), started(), checkpointSaved('cp-1', 1, { a: 1 }, ['ask']), awaiting], {
        now: anHourAgo,
      });
      await writeRun(bus, 'ended', [queued(), started(), checkpointSaved('cp-1', 1, { a: 1 }, ['next']), completed], { now: anHourAgo });
      await appliedUpTo(store.db, 'waits', 4);
      await appliedUpTo(store.db, 'ended', 4);

      // Half an hour of TTL: both are past it, only the waiting one stays.
      await purgeExpiredRows(store.db, 0.5);
      expect((await remaining(store.db)).checkpoints).toEqual(['waits/cp-1']);
      expect(await initialStates(store.db)).toEqual(['waits']);

      // Answered and finished: its checkpoints expire like any other run's.
      const resumed: RunEventDraft = {
        type: 'run.resumed',
        spanId: 'root',
        path: 'root',
        data: { reason: 'answered', attempt: 2, worker: 'w1' },
      };
      await writeRun(bus, 'waits', [resumed, completed], { writer: waits });
      await appliedUpTo(store.db, 'waits', 6);
      await purgeExpiredRows(store.db, 0.5);
      expect((await remaining(store.db)).checkpoints).toEqual([]);
      expect(await initialStates(store.db)).toEqual([]);
    } finally {
      await bus.close();
    }
  });
});

const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

async function initialStates(db: Kysely<CheckpointTables>): Promise<string[]> {
  return (await db.selectFrom('initial_states').select('run_id').orderBy('run_id').execute()).map((r) => r.run_id);
}

/** Rows saved / stored the given number of hours ago; checkpoints named `<run>/<checkpoint>`. */
async function seed(
  db: Kysely<CheckpointTables>,
  checkpointAges: Record<string, number>,
  nodeResultAges: Record<string, number>,
): Promise<void> {
  const ago = (hours: number) => new Date(Date.now() - hours * HOUR_MS);
  await db
    .insertInto('checkpoints')
    .values(
      Object.entries(checkpointAges).map(([name, hours], i) => {
        const [runId, id] = name.split('/');
        return {
          run_id: runId,
          checkpoint_id: id,
          seq: i + 1,
          step: i,
          changes: '{}',
          frontier: '[]',
          graph_hash: 'g',
          saved_at: ago(hours),
        };
      }),
    )
    .execute();
  await db
    .insertInto('node_results')
    .values(
      Object.entries(nodeResultAges).map(([key, hours]) => ({
        key,
        run_id: 'run-p',
        node_id: 'n',
        output: '{}',
        handle: null,
        stored_at: ago(hours),
      })),
    )
    .execute();
}

async function remaining(db: Kysely<CheckpointTables>) {
  return {
    checkpoints: (
      await db.selectFrom('checkpoints').select(['run_id', 'checkpoint_id']).orderBy('run_id').orderBy('checkpoint_id').execute()
    ).map((r) => `${r.run_id}/${r.checkpoint_id}`),
    nodeResults: (await db.selectFrom('node_results').select('key').orderBy('key').execute()).map((r) => r.key),
  };
}
