import type { TestingModule } from '@nestjs/testing';
import { readRunLog, RunLogWriter, type Bus } from '@spindle/bus';
import type { RunEvent, RunEventDraft } from '@spindle/contracts';
import { testNamespace } from '@spindle/testing';
import { foldEvents } from '@spindle/projection-kit';
import { CheckpointProjection } from './checkpoint.projection';
import { CheckpointReader } from './checkpoint.reader';
import {
  allRows,
  appliedUpTo,
  capturingLogger,
  checkpointSaved,
  eventually,
  HOUR_MS,
  legacyCheckpointSaved,
  nodeCompleted,
  nodeStarted,
  openCheckpointSchema,
  queued,
  removeStreams,
  startCheckpointService,
  started,
  testBus,
  writeRun,
} from './checkpoint-test.fixture';

const TTL_HOURS = 168;

describe('checkpoint projection (Nest app on NATS and Postgres)', () => {
  const namespace = testNamespace();
  // A second schema, fed directly, for a projection to compare against.
  const referenceNamespace = testNamespace();
  const { logger, lines } = capturingLogger();
  let app: TestingModule | undefined;
  let client: Bus;
  let store: Awaited<ReturnType<typeof openCheckpointSchema>>;
  let reference: Awaited<ReturnType<typeof openCheckpointSchema>>;

  const logOf = async (runId: string): Promise<RunEvent[]> => (await readRunLog(client, runId)).events;
  const projection = new CheckpointProjection('checkpoint', TTL_HOURS);

  beforeAll(async () => {
    client = await testBus(namespace, 'checkpoint-projection-test');
    store = await openCheckpointSchema(namespace);
    reference = await openCheckpointSchema(referenceNamespace);
    app = await startCheckpointService(namespace, { logger, settings: { ttlHours: TTL_HOURS } });
  });
  afterAll(async () => {
    await app?.close();
    await client?.close();
    await removeStreams(namespace);
    await store?.drop();
    await reference?.drop();
  });

  it('projects the initial state, what each checkpoint changed, and a cached node result', async () => {
    const writer = await writeRun(client, 'run-a', [
      queued(),
      started(),
      nodeStarted('fetch'),
      nodeCompleted('fetch', { pages: 3 }, { cacheKey: 'key-fetch', handle: 'obj-1' }),
      checkpointSaved('cp-1', 1, { pages: 3 }, ['summarize']),
      nodeStarted('summarize'),
      // Not a `checkpoint: true` node: no cache key, no row.
      nodeCompleted('summarize', { summary: 'high and low' }),
      checkpointSaved('cp-2', 2, { summary: 'high and low' }, []),
    ]);
    await appliedUpTo(store.db, 'run-a', writer.lastSeq);

    const events = await logOf('run-a');
    const at = (seq: number) => new Date(events[seq - 1].at);
    const rows = await allRows(store.db);
    expect(rows.initialStates).toEqual([{ run_id: 'run-a', state: {}, queued_at: at(1) }]);
    expect(rows.checkpoints).toEqual([
      {
        run_id: 'run-a',
        checkpoint_id: 'cp-1',
        seq: 5,
        step: 1,
        changes: { pages: 3 },
        state: null,
        frontier: ['summarize'],
        graph_hash: 'g1',
        saved_at: at(5),
      },
      {
        run_id: 'run-a',
        checkpoint_id: 'cp-2',
        seq: 8,
        step: 2,
        changes: { summary: 'high and low' },
        state: null,
        frontier: [],
        graph_hash: 'g1',
        saved_at: at(8),
      },
    ]);
    expect(rows.nodeResults).toEqual([
      { key: 'key-fetch', run_id: 'run-a', node_id: 'fetch', output: { pages: 3 }, handle: 'obj-1', stored_at: at(4) },
    ]);
    expect(rows.progress).toEqual([{ run_id: 'run-a', last_seq: 8, last_type: 'checkpoint.saved', queued_at: expect.any(Date) }]);
  });

  it('ends a restart with exactly the rows of a projection that never stopped', async () => {
    await app?.close();
    app = undefined;
    // Written while the service is down: the restarted one catches up from its durable consumer.
    const runA = await writeRun(
      client,
      'run-a',
      [nodeStarted('rank'), nodeCompleted('rank', { top: 1 }, { cacheKey: 'key-rank' }), checkpointSaved('cp-3', 2, { top: 1 }, [])],
      {
        writer: await continueLog('run-a'),
      },
    );
    const runB = await writeRun(client, 'run-b', [
      queued(),
      started(),
      nodeCompleted('fetch', { pages: 1 }, { cacheKey: 'key-fetch-b' }),
      checkpointSaved('cp-1', 0, { pages: 1 }, ['done']),
    ]);
    app = await startCheckpointService(namespace, { logger, settings: { ttlHours: TTL_HOURS } });
    await appliedUpTo(store.db, 'run-a', runA.lastSeq);
    await appliedUpTo(store.db, 'run-b', runB.lastSeq);

    await reference.db.deleteFrom('run_progress').execute();
    await reference.db.deleteFrom('checkpoints').execute();
    await reference.db.deleteFrom('node_results').execute();
    await reference.db.deleteFrom('initial_states').execute();
    await foldEvents(reference.db, projection, [...(await logOf('run-a')), ...(await logOf('run-b'))]);
    const rows = await allRows(store.db);
    expect(rows).toEqual(await allRows(reference.db));
    expect(rows.checkpoints.map((c) => `${c.run_id}/${c.checkpoint_id}`)).toEqual(['run-a/cp-1', 'run-a/cp-2', 'run-a/cp-3', 'run-b/cp-1']);
    expect(rows.nodeResults.map((r) => r.key)).toEqual(['key-fetch', 'key-fetch-b', 'key-rank']);
  });

  it('stores no row for an event already past the TTL, so a replay cannot bring back a purged one', async () => {
    const old = Date.now() - (TTL_HOURS + 1) * HOUR_MS;
    const writer = await writeRun(
      client,
      'run-old',
      [queued(), nodeCompleted('fetch', { pages: 9 }, { cacheKey: 'key-old' }), checkpointSaved('cp-old', 0, {}, [])],
      { now: () => new Date(old) },
    );
    await appliedUpTo(store.db, 'run-old', writer.lastSeq);
    expect(await store.db.selectFrom('checkpoints').select('checkpoint_id').where('run_id', '=', 'run-old').execute()).toEqual([]);
    expect(await store.db.selectFrom('node_results').select('key').where('key', '=', 'key-old').execute()).toEqual([]);
  });

  it('skips an event the database refuses and keeps the rest, storing a NUL in state as U+FFFD', async () => {
    const writer = await writeRun(client, 'run-nul', [
      queued(),
      checkpointSaved('cp-nul', 0, { note: 'a\u0000b' }, ['next']),
      // Postgres text cannot hold a NUL character: this row is refused.
      nodeCompleted('fetch', { pages: 1 }, { cacheKey: 'key\u0000nul' }),
      checkpointSaved('cp-after', 1, { note: 'ok' }, []),
    ]);
    const rows = await eventually(async () => {
      const found = await store.db
        .selectFrom('checkpoints')
        .select(['checkpoint_id', 'changes'])
        .where('run_id', '=', 'run-nul')
        .orderBy('seq')
        .execute();
      if (found.length < 2) throw new Error(`only ${found.length} checkpoints of run-nul so far`);
      return found;
    });
    expect(rows).toEqual([
      { checkpoint_id: 'cp-nul', changes: { note: 'a\ufffdb' } },
      { checkpoint_id: 'cp-after', changes: { note: 'ok' } },
    ]);
    await appliedUpTo(store.db, 'run-nul', writer.lastSeq);
    expect(await store.db.selectFrom('node_results').select('key').where('run_id', '=', 'run-nul').execute()).toEqual([]);
    expect(lines).toEqual(expect.arrayContaining([expect.objectContaining({ level: 'error', runId: 'run-nul', seq: 3 })]));
  });

  it('answers a checkpoint with its whole state: the initial state and the changes up to it, or a legacy whole state', async () => {
    const reader = new CheckpointReader(store.db, TTL_HOURS);
    expect(await reader.getCheckpoint('run-a', 'cp-1')).toMatchObject({ checkpointId: 'cp-1', state: { pages: 3 } });
    expect(await reader.getCheckpoint('run-a', 'cp-2')).toMatchObject({ state: { pages: 3, summary: 'high and low' } });
    // The latest, written while the service was down (the test before).
    expect(await reader.getCheckpoint('run-a')).toMatchObject({
      checkpointId: 'cp-3',
      state: { pages: 3, summary: 'high and low', top: 1 },
    });

    const writer = await writeRun(client, 'run-legacy', [
      { ...queued(), data: { ...(queued().data as object), state: { from: 'queued' } } } as RunEventDraft,
      legacyCheckpointSaved('cp-1', 1, { whole: 'state' }, ['next']),
      checkpointSaved('cp-2', 2, { added: true }, []),
    ]);
    await appliedUpTo(store.db, 'run-legacy', writer.lastSeq);
    expect(await reader.getCheckpoint('run-legacy', 'cp-2')).toMatchObject({ state: { whole: 'state', added: true } });
    expect(await reader.getCheckpoint('run-legacy', 'cp-9')).toBeNull();
  });

  /** A writer that appends where the run's log ends. */
  async function continueLog(runId: string): Promise<RunLogWriter> {
    const { position } = await readRunLog(client, runId);
    if (!position) throw new Error(`run ${runId} has no log`);
    return new RunLogWriter(client, runId, position);
  }
});
