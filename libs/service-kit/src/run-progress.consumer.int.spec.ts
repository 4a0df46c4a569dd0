import type { INestApplication } from '@nestjs/common';
import { EMPTY_LOG, RunLogWriter, deleteStreams, connectBus, type Bus } from '@spindle/bus';
import { createDatabase, dropSchema, projectionProgressMigrations, serviceSchema, type ProjectionProgressTables } from '@spindle/db';
import { testEnv, testNamespace } from '@spindle/testing';
import { Module } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { bootstrapService } from './bootstrap-service';
import { InfraModule } from './infra.module';
import { RunProgressConsumer } from './run-progress.consumer';
import { parseServiceConfig } from './service-config';

/** The projection services' shared consumer, booted as a real Nest app on real NATS and Postgres. */
describe('RunProgressConsumer', () => {
  const namespace = testNamespace();
  const { natsUrl, databaseUrl } = testEnv();
  const config = parseServiceConfig({ NATS_URL: natsUrl, DATABASE_URL: databaseUrl, SPINDLE_NAMESPACE: namespace, HOST: '127.0.0.1', LOG_LEVEL: 'fatal', PORT: '0' }, 'checkpoint', 'PORT', 0);
  let app: INestApplication;
  let bus: Bus;
  let db: Kysely<ProjectionProgressTables>;

  beforeAll(async () => {
    @Module({ imports: [InfraModule.forRoot({ config, database: { owner: 'checkpoint', migrations: projectionProgressMigrations } })], providers: [RunProgressConsumer] })
    class TestModule {}
    app = await bootstrapService(TestModule, config);
    bus = await connectBus({ url: natsUrl, namespace, name: 'progress-test' });
    db = createDatabase({ url: databaseUrl, schema: serviceSchema('checkpoint', namespace) });
  });
  afterAll(async () => {
    await app.close();
    await deleteStreams(bus);
    await bus.close();
    await dropSchema(db as Kysely<unknown>, serviceSchema('checkpoint', namespace));
    await db.destroy();
  });

  it('projects every run log and dead-letters what is not a run event', async () => {
    const log = new RunLogWriter(bus, 'run-1', EMPTY_LOG);
    await bus.js.publish(bus.names.eventSubject('run-1x'), '{"no":"event"}');
    for (let i = 0; i < 3; i++) await log.append({ type: 'custom', spanId: 's', path: 'root', data: { i } });
    let rows: Array<{ run_id: string; last_seq: number }> = [];
    while (rows.length === 0 || rows[0].last_seq < 3) {
      rows = await db.selectFrom('run_progress').select(['run_id', 'last_seq']).execute();
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(rows).toEqual([{ run_id: 'run-1', last_seq: 3 }]);
    const dlq = await bus.js.consumers.get(bus.names.deadLetterStream, { filter_subjects: bus.names.deadLetterSubject('checkpoint') });
    const dead = await dlq.next({ expires: 5_000 });
    expect(dead?.headers?.get('Spindle-Dlq-Subject')).toBe(bus.names.eventSubject('run-1x'));
    expect(dead?.headers?.get('Spindle-Dlq-Reason')).toMatch(/runId|type/);
  });
});
