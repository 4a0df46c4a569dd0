import { provisionStreams, type Bus } from '@spindle/bus';
import {
  deliveryArb,
  messagesOf,
  newSettlement,
  referenceFold,
  runLogArbitrary,
  schedule,
  testNamespace,
  traceView,
  withRunId,
} from '@spindle/testing';
import type { TraceTables } from '@spindle/db';
import { appliedSeq, progressTables, ProjectionRunner } from '@spindle/projection-kit';
import fc from 'fast-check';
import { TraceProjection } from './trace.projection';
import { TraceRepository } from './trace.repository';
import { capturingLogger, openTraceSchema, removeStreams, testBus } from './trace-test.fixture';

const NUM_RUNS = 25;

describe('trace projection against Postgres (property)', () => {
  let store: Awaited<ReturnType<typeof openTraceSchema>>;
  let repository: TraceRepository;
  let bus: Bus;
  let runner: ProjectionRunner<TraceTables>;
  let runs = 0;
  const namespace = testNamespace();

  beforeAll(async () => {
    store = await openTraceSchema(namespace);
    repository = new TraceRepository(store.db);
    bus = await testBus(namespace, 'trace-projection-property');
    await provisionStreams(bus);
    runner = new ProjectionRunner<TraceTables>(bus, store.db, new TraceProjection('trace-recorder'), capturingLogger().logger);
  });
  afterAll(async () => {
    await bus?.close();
    await removeStreams(namespace);
    await store?.drop();
  });

  it('stores, for any valid log however it is delivered, exactly what the reference fold reads off the log', async () => {
    await fc.assert(
      fc.asyncProperty(runLogArbitrary(), deliveryArb, async (generated, delivery) => {
        const runId = `prop-${++runs}`;
        const log = withRunId(generated, runId);
        const settled = newSettlement();
        // The log is on its subject too: a runner meeting a gap fills it from there.
        for (const event of log) await bus.js.publish(bus.names.eventSubject(runId), JSON.stringify(event));
        let applied = 0;
        for (const batch of schedule(log, delivery)) {
          const result = await runner.handle(messagesOf(bus, batch, settled));
          applied += result.applied;
        }

        // Every event stored and projected once; every message settled by an ack, none refused.
        expect(applied).toBe(log.length);
        expect(settled.naks).toEqual([]);
        expect(settled.terms).toEqual([]);
        expect([...settled.acks.keys()].sort((a, b) => a - b)).toEqual(log.map((e) => e.seq));
        expect(await appliedSeq(progressTables(store.db), runId)).toBe(log.length);

        const trace = await repository.getTrace(runId);
        if (!trace) throw new Error(`no trace of ${runId}`);
        expect(trace.run.runId).toBe(runId);
        expect(traceView(trace)).toEqual(referenceFold(log, { orphans: 'canceled' }));
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
