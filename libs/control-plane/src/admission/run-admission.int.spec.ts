import { provisionStreams, type Bus } from '@spindle/bus';
import { runCommandSchema } from '@spindle/contracts';
import { gatewayMigrations, type GatewayTables } from '@spindle/db';
import { createLogger } from '@spindle/telemetry';
import { openTestSchema, removeStreams, testBus, testNamespace } from '@spindle/testing';
import type { Kysely } from 'kysely';
import { AdmissionRepository, type QueuedRun } from './admission.repository';
import { RunAdmission } from './run-admission';

/** Issue 13: starts that arrive together are queued together, and still admitted within every limit. */
describe('run admission of concurrent starts', () => {
  const namespace = testNamespace();
  let bus: Bus;
  let db: Kysely<GatewayTables>;
  let drop: () => Promise<void>;
  const quotas = { maxRunning: 3, startsPerMinute: 1_000, dailyTokenBudget: null, dailyCostBudgetUsd: null, dispatchWindow: 5 };

  beforeAll(async () => {
    bus = await testBus(namespace, 'admission-test');
    await provisionStreams(bus);
    ({ db, drop } = await openTestSchema<GatewayTables>('gateway', namespace, gatewayMigrations));
    await db
      .insertInto('tenants')
      .values({ id: 'acme', name: 'Acme', operator: false, created_at: new Date(), updated_at: new Date() })
      .execute();
  });
  afterAll(async () => {
    await drop();
    await bus.close();
    await removeStreams(namespace);
  });

  /** The run ids of every start command on the commands stream. */
  const startCommands = async (): Promise<string[]> => {
    const jsm = await bus.js.jetstreamManager();
    const { state } = await jsm.streams.info(bus.names.commandsStream);
    const ids: string[] = [];
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
      const stored = await jsm.streams.getMessage(bus.names.commandsStream, { seq });
      const command = runCommandSchema.parse(stored?.json());
      if (command.type === 'run.start') ids.push(command.runId);
    }
    return ids;
  };

  it('queues twelve simultaneous starts within the window and each tenant limit, and sends exactly the admitted', async () => {
    const admission = new RunAdmission(bus, db, new AdmissionRepository(), quotas, createLogger('admission-test', { level: 'fatal' }));
    const run = (i: number, tenant: string): QueuedRun => ({
      runId: `r-${tenant}-${i}`,
      tenant,
      queuedAt: new Date().toISOString(),
      trace: { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` },
    });
    const runs = [...Array.from({ length: 8 }, (_, i) => run(i, 'default')), ...Array.from({ length: 4 }, (_, i) => run(i, 'acme'))];

    await Promise.all(runs.map((r) => admission.enqueue(r)));

    const rows = await db.selectFrom('run_admissions').select(['run_id', 'tenant_id', 'state', 'trace']).execute();
    expect(rows.map((r) => r.run_id).sort()).toEqual(runs.map((r) => r.runId).sort());
    const admitted = rows.filter((r) => r.state === 'admitted');
    // The window holds five; neither tenant passes its three.
    expect(admitted).toHaveLength(5);
    for (const tenant of ['default', 'acme']) expect(admitted.filter((r) => r.tenant_id === tenant).length).toBeLessThanOrEqual(3);
    expect(rows.every((r) => r.trace !== null)).toBe(true);
    expect((await startCommands()).sort()).toEqual(admitted.map((r) => r.run_id).sort());
    // Seven wait: the dispatcher's projection takes its batches without lingering while it knows so.
    expect(admission.runsMayWait).toBe(true);

    // Every run gone from the table (ended): a pass finds nobody waiting, and lingering is fine again.
    await db.deleteFrom('run_admissions').execute();
    await admission.admit();
    expect(admission.runsMayWait).toBe(false);
  });
});
