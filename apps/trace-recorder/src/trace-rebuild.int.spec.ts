import { EMPTY_LOG, query, RunLogWriter, type Bus } from '@spindle/bus';
import type { RunEventDraft, RunTrace, TraceQueryResults } from '@spindle/contracts';
import { testNamespace } from '@spindle/testing';
import { rebuildProjection } from '@spindle/projection-kit';
import type { TraceTables } from '@spindle/db';
import { TraceProjection } from './trace.projection';
import { TraceRepository } from './trace.repository';
import {
  capturingLogger,
  completedRun,
  failedRun,
  openTraceSchema,
  queued,
  removeStreams,
  startRecorder,
  steppingClock,
  testBus,
  usage,
} from './trace-test.fixture';

const RUNS: Record<string, RunEventDraft[]> = {
  'run-ok': completedRun('support', usage(11, 4)),
  'run-failed': failedRun(),
  'run-waiting': [
    queued('support'),
    { type: 'run.started', spanId: 'root', path: 'root', data: { attempt: 1, worker: 'w1' } },
    { type: 'run.awaiting', spanId: 'root', path: 'root', data: { reason: 'input', requestIds: ['q1'] } },
  ],
};
const EVENT_COUNT = Object.values(RUNS).flat().length;

describe('rebuilding the trace from the log', () => {
  const namespace = testNamespace();
  const { logger } = capturingLogger();
  let client: Bus;
  let store: Awaited<ReturnType<typeof openTraceSchema>>;
  let repository: TraceRepository;
  let before: Array<TraceQueryResults['getTrace']['trace']>;
  let listedBefore: TraceQueryResults['listRuns'];

  const traces = () => Promise.all(Object.keys(RUNS).map((runId) => repository.getTrace(runId)));

  beforeAll(async () => {
    const app = await startRecorder(namespace, logger);
    try {
      client = await testBus(namespace, 'rebuild-test-client');
      for (const [runId, drafts] of Object.entries(RUNS)) {
        const writer = new RunLogWriter(client, runId, EMPTY_LOG, { now: steppingClock() });
        for (const draft of drafts) await writer.write(draft);
        await query(client, 'trace', 'getRun', { runId, waitForSeq: writer.lastSeq });
      }
      await client.js.publish(client.names.eventSubject('run-junk'), 'not json');
    } finally {
      await app.close();
    }
    store = await openTraceSchema(namespace);
    // One clock for every read: a run still going counts its durations to `now`.
    repository = new TraceRepository(store.db, () => 0);
    before = await traces();
    listedBefore = await repository.listRuns({ tenant: 'default', sort: 'started', order: 'desc', limit: 50 });
  });
  afterAll(async () => {
    await client?.close();
    await removeStreams(namespace);
    await store?.drop();
  });

  it('replays the stream into emptied tables, giving JSON identical to what the live consumer wrote', async () => {
    expect(before.map((t) => t?.run.status)).toEqual(['completed', 'failed', 'awaiting_input']);

    const result = await rebuildProjection<TraceTables>(client, store.db, new TraceProjection(client.names.durables.traceRecorder), logger);

    expect(result).toEqual({ events: EVENT_COUNT, runs: 3 });
    expect(JSON.parse(JSON.stringify(await traces()))).toEqual(JSON.parse(JSON.stringify(before)));
    expect(await repository.listRuns({ tenant: 'default', sort: 'started', order: 'desc', limit: 50 })).toEqual(listedBefore);
  });

  it('gives the same rows when it runs beside a live recorder sharing its durable consumer', async () => {
    const app = await startRecorder(namespace, logger);
    try {
      await rebuildProjection<TraceTables>(client, store.db, new TraceProjection(client.names.durables.traceRecorder), logger);
      const after: Array<RunTrace | null> = await traces();
      expect(after).toEqual(before);
    } finally {
      await app.close();
    }
  });
});
