import { provisionStreams } from '@spindle/bus';
import type { TraceTables } from '@spindle/db';
import { describeProjectionConformance, testNamespace } from '@spindle/testing';
import { TraceProjection } from './trace.projection';
import { TraceRepository } from './trace.repository';
import { openTraceSchema, removeStreams, testBus } from './trace-test.fixture';

describeProjectionConformance<TraceTables>('trace', async () => {
  const namespace = testNamespace();
  const store = await openTraceSchema(namespace);
  const reference = await openTraceSchema(testNamespace());
  const bus = await testBus(namespace, 'trace-conformance');
  await provisionStreams(bus);
  return {
    bus,
    db: store.db,
    reference: reference.db,
    projection: new TraceProjection('trace-recorder'),
    rows: async (db, runId) => ({
      // One clock for both reads: a run still going counts its durations to `now`.
      trace: await new TraceRepository(db, () => 0).getTrace(runId),
      log: await db.selectFrom('run_events').select(['seq', 'type', 'event']).where('run_id', '=', runId).orderBy('seq').execute(),
    }),
    async close() {
      await bus.close();
      await removeStreams(namespace);
      await store.drop();
      await reference.drop();
    },
  };
});
