import type { TestingModule } from '@nestjs/testing';
import { query, type Bus } from '@spindle/bus';
import type { CheckpointQueryResults } from '@spindle/contracts';
import { testNamespace } from '@spindle/testing';
import {
  appliedUpTo,
  checkpointSaved,
  HOUR_MS,
  nodeCompleted,
  openCheckpointSchema,
  queued,
  removeStreams,
  startCheckpointService,
  started,
  testBus,
  writeRun,
} from './checkpoint-test.fixture';

describe('checkpoint queries (svc.checkpoint.* over NATS)', () => {
  const namespace = testNamespace();
  let app: TestingModule;
  let client: Bus;
  let store: Awaited<ReturnType<typeof openCheckpointSchema>>;

  const ask = <Op extends keyof CheckpointQueryResults>(op: Op, payload: unknown) =>
    query<CheckpointQueryResults[Op]>(client, 'checkpoint', op, payload);

  beforeAll(async () => {
    client = await testBus(namespace, 'checkpoint-queries-test');
    store = await openCheckpointSchema(namespace);
    app = await startCheckpointService(namespace, { settings: { ttlHours: 24 } });
  });
  afterAll(async () => {
    await app?.close();
    await client?.close();
    await removeStreams(namespace);
    await store?.drop();
  });

  it('lists a run’s checkpoints in log order, without state, and reads the latest or a named one', async () => {
    const writer = await writeRun(client, 'run-list', [
      queued(),
      started(),
      checkpointSaved('cp-b', 0, { n: 0 }, ['two']),
      checkpointSaved('cp-a', 1, { n: 1 }, ['three']),
      checkpointSaved('cp-c', 2, { n: 2 }, []),
    ]);
    const { checkpoints } = await ask('listCheckpoints', { runId: 'run-list', waitForSeq: writer.lastSeq });
    expect(checkpoints.map((c) => [c.checkpointId, c.seq, c.step, c.frontier])).toEqual([
      ['cp-b', 3, 0, ['two']],
      ['cp-a', 4, 1, ['three']],
      ['cp-c', 5, 2, []],
    ]);
    expect(checkpoints[0]).toEqual({
      checkpointId: 'cp-b',
      runId: 'run-list',
      seq: 3,
      step: 0,
      frontier: ['two'],
      graphHash: 'g1',
      savedAt: expect.any(String),
    });
    expect(Number.isNaN(Date.parse(checkpoints[0].savedAt))).toBe(false);

    expect((await ask('getCheckpoint', { runId: 'run-list' })).checkpoint).toMatchObject({ checkpointId: 'cp-c', seq: 5, state: { n: 2 } });
    expect((await ask('getCheckpoint', { runId: 'run-list', checkpointId: 'cp-a' })).checkpoint).toMatchObject({
      checkpointId: 'cp-a',
      seq: 4,
      state: { n: 1 },
      frontier: ['three'],
    });
    // A miss says where the TTL cuts (a day before now here), so the gateway can tell a purged checkpoint from a late one.
    const miss = { checkpoint: null, expiredBefore: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) };
    const missed = await ask('getCheckpoint', { runId: 'run-list', checkpointId: 'cp-none' });
    expect(missed).toEqual(miss);
    expect(Math.abs(Date.now() - 24 * HOUR_MS - Date.parse((missed as { expiredBefore: string }).expiredBefore))).toBeLessThan(HOUR_MS);
    expect(await ask('getCheckpoint', { runId: 'no-such-run' })).toEqual(miss);
    expect(await ask('listCheckpoints', { runId: 'no-such-run' })).toEqual({ checkpoints: [] });
  });

  it('waitForSeq answers with a checkpoint appended after the query was sent', async () => {
    const writer = await writeRun(client, 'run-wait', [queued(), checkpointSaved('cp-1', 0, { n: 1 }, ['next'])]);
    await appliedUpTo(store.db, 'run-wait', writer.lastSeq);

    const answer = ask('getCheckpoint', { runId: 'run-wait', waitForSeq: writer.lastSeq + 1 });
    // The request is with the server before the checkpoint is appended.
    await client.nc.flush();
    await writeRun(client, 'run-wait', [checkpointSaved('cp-2', 1, { n: 2 }, [])], { writer });
    expect((await answer).checkpoint).toMatchObject({ checkpointId: 'cp-2', seq: 3, state: { n: 2 } });

    // A seq that never comes: answered with what there is once the bounded wait ends.
    expect((await ask('listCheckpoints', { runId: 'run-wait', waitForSeq: 99 })).checkpoints.map((c) => c.checkpointId)).toEqual([
      'cp-1',
      'cp-2',
    ]);
  });

  it('getNodeResult answers the first key, in the order given, that is stored and within the TTL', async () => {
    const writer = await writeRun(client, 'run-cache', [
      queued(),
      nodeCompleted('fetch', { pages: 2 }, { cacheKey: 'k-fetch', handle: 'obj-9' }),
      nodeCompleted('rank', { top: 1 }, { cacheKey: 'k-rank' }),
    ]);
    await appliedUpTo(store.db, 'run-cache', writer.lastSeq);
    // Stored 25 hours ago: past this service's 24-hour TTL, not yet purged.
    await store.db
      .insertInto('node_results')
      .values({
        key: 'k-stale',
        run_id: 'run-old',
        node_id: 'fetch',
        output: '{"pages":1}',
        handle: null,
        stored_at: new Date(Date.now() - 25 * HOUR_MS),
      })
      .execute();

    const fetch = { key: 'k-fetch', runId: 'run-cache', nodeId: 'fetch', output: { pages: 2 }, handle: 'obj-9' };
    const rank = { key: 'k-rank', runId: 'run-cache', nodeId: 'rank', output: { top: 1 }, handle: null };
    expect(await ask('getNodeResult', { keys: ['k-fetch', 'k-rank'] })).toEqual({ result: fetch });
    expect(await ask('getNodeResult', { keys: ['k-rank', 'k-fetch'] })).toEqual({ result: rank });
    expect(await ask('getNodeResult', { keys: ['k-missing', 'k-rank'] })).toEqual({ result: rank });
    expect(await ask('getNodeResult', { keys: ['k-stale'] })).toEqual({ result: null });
    expect(await ask('getNodeResult', { keys: ['k-stale', 'k-fetch'] })).toEqual({ result: fetch });
    expect(await ask('getNodeResult', { keys: ['k-missing'] })).toEqual({ result: null });
  });

  it('refuses a malformed query naming the field', async () => {
    await expect(ask('getNodeResult', { keys: [] })).rejects.toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('keys'),
    });
    await expect(ask('getCheckpoint', {})).rejects.toMatchObject({ code: 'validation_failed', message: expect.stringContaining('runId') });
  });
});
