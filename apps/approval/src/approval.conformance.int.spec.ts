import type { ApprovalTables } from '@spindle/db';
import { describeProjectionConformance, testNamespace } from '@spindle/testing';
import { RequestsProjection } from './requests.projection';
import { openApprovalSchema, removeStreams, testBus } from './approval-test.fixture';

describeProjectionConformance<ApprovalTables>('approval', async () => {
  const namespace = testNamespace();
  const store = await openApprovalSchema(namespace);
  const reference = await openApprovalSchema(testNamespace());
  const bus = await testBus(namespace, 'approval-conformance');
  return {
    bus,
    db: store.db,
    reference: reference.db,
    projection: new RequestsProjection('approval'),
    rows: async (db, runId) => ({
      run: await db.selectFrom('runs').selectAll().where('run_id', '=', runId).execute(),
      requests: await db.selectFrom('requests').selectAll().where('run_id', '=', runId).orderBy('request_id').execute(),
    }),
    async close() {
      await bus.close();
      await removeStreams(namespace);
      await store.drop();
      await reference.drop();
    },
  };
});
