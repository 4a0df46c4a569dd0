import { provisionStreams } from '@spindle/bus';
import { WEBHOOK_EVENT_TYPES } from '@spindle/contracts';
import { gatewayMigrations, type GatewayTables } from '@spindle/db';
import { describeProjectionConformance, openTestSchema, removeStreams, testBus, testNamespace } from '@spindle/testing';
import type { Kysely } from 'kysely';
import { AdmissionRepository } from './admission.repository';
import { controlPlaneProjection } from './control-plane.projection';

/** The generated logs' tenant, subscribed to every webhook event so the webhook fold makes deliveries. */
async function subscribed(db: Kysely<GatewayTables>): Promise<void> {
  await db
    .insertInto('tenants')
    .values({ id: 'acme', name: 'Acme', operator: false, created_at: new Date(), updated_at: new Date() })
    .execute();
  await db
    .insertInto('webhooks')
    .values({
      id: 'whk_conformance',
      tenant_id: 'acme',
      url: 'https://example.com/hook',
      events: JSON.stringify(WEBHOOK_EVENT_TYPES),
      workflow: null,
      thread_id: null,
      schedule_id: null,
      secret: 'secret',
      created_at: new Date('2025-01-01T00:00:00Z'),
      created_by: JSON.stringify({ kind: 'key', id: 'ci' }),
      deleted_at: null,
    })
    .execute();
}

describeProjectionConformance<GatewayTables>('control plane (admission, threads, webhooks)', async () => {
  const namespace = testNamespace();
  const store = await openTestSchema<GatewayTables>('gateway', namespace, gatewayMigrations);
  const reference = await openTestSchema<GatewayTables>('gateway', testNamespace(), gatewayMigrations);
  for (const db of [store.db, reference.db]) await subscribed(db);
  const bus = await testBus(namespace, 'control-plane-conformance');
  await provisionStreams(bus);
  return {
    bus,
    db: store.db,
    reference: reference.db,
    projection: controlPlaneProjection('admission', new AdmissionRepository()),
    rows: async (db, runId) => ({
      admission: await db.selectFrom('run_admissions').selectAll().where('run_id', '=', runId).execute(),
      threadRuns: await db.selectFrom('thread_runs').selectAll().where('run_id', '=', runId).orderBy('position').execute(),
      webhookRuns: await db.selectFrom('webhook_runs').selectAll().where('run_id', '=', runId).execute(),
      // A delivery's id and creation time are the fold's own (a new id, the time it was made).
      deliveries: await db
        .selectFrom('webhook_deliveries')
        .select(['webhook_id', 'event_id', 'event_type', 'payload', 'status', 'attempts', 'delivered_at'])
        .where('run_id', '=', runId)
        .orderBy('event_id')
        .execute(),
      evaluationRuns: await db.selectFrom('evaluation_runs').selectAll().where('run_id', '=', runId).execute(),
      evaluations: await db.selectFrom('evaluations').selectAll().where('run_id', '=', runId).orderBy('evaluation_id').execute(),
    }),
    async close() {
      await bus.close();
      await removeStreams(namespace);
      await store.drop();
      await reference.drop();
    },
  };
});
