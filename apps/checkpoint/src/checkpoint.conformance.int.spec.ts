import { provisionStreams } from '@spindle/bus';
import type { CheckpointTables } from '@spindle/db';
import { describeProjectionConformance, testNamespace } from '@spindle/testing';
import { CheckpointProjection } from './checkpoint.projection';
import { openCheckpointSchema, removeStreams, testBus } from './checkpoint-test.fixture';

describeProjectionConformance<CheckpointTables>('checkpoint', async () => {
  const namespace = testNamespace();
  const store = await openCheckpointSchema(namespace);
  const reference = await openCheckpointSchema(testNamespace());
  const bus = await testBus(namespace, 'checkpoint-conformance');
  await provisionStreams(bus);
  return {
    bus,
    db: store.db,
    reference: reference.db,
    // Generated logs are dated 2025: a TTL that keeps them.
    projection: new CheckpointProjection('checkpoint', 24 * 365 * 100),
    rows: async (db, runId) => ({
      checkpoints: await db.selectFrom('checkpoints').selectAll().where('run_id', '=', runId).orderBy('seq').execute(),
      nodeResults: await db.selectFrom('node_results').selectAll().where('run_id', '=', runId).orderBy('key').execute(),
    }),
    async close() {
      await bus.close();
      await removeStreams(namespace);
      await store.drop();
      await reference.drop();
    },
  };
});
