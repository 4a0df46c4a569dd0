import { ROOT_CONTEXT } from '@opentelemetry/api';
import { firstEventOf, provisionStreams, readRunLog, type Bus } from '@spindle/bus';
import { SNIFFABLE_MEDIA_TYPES, startRunBodySchema, type Principal, type RunAccepted } from '@spindle/contracts';
import { gatewayMigrations, type GatewayTables } from '@spindle/db';
import { createLogger } from '@spindle/telemetry';
import { openTestSchema, removeStreams, testBus, testNamespace } from '@spindle/testing';
import type { Kysely } from 'kysely';
import { ulid } from 'ulid';
import { AdmissionRepository } from '../admission/admission.repository';
import { RunAdmission } from '../admission/run-admission';
import { StartQuotas } from '../admission/start-quotas';
import { AgentCatalogRepository } from '../catalogs/agent-catalog.repository';
import { WorkflowCatalogRepository } from '../catalogs/workflow-catalog.repository';
import { FileLibrary } from '../files/file-library';
import { FileRepository } from '../files/file.repository';
import { WebhookRepository } from '../webhooks/webhook.repository';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import { requestHash } from './idempotent-creation';
import { RunStarter } from './run-starter';

const T = 'default';
const caller: Principal = {
  actor: { kind: 'key', id: 'adakey0000000000', name: 'ada' },
  tenant: T,
  scopes: new Set(),
  operator: false,
  via: 'api_key',
};
/** Every tenant runs on the defaults: the quota is not what this spec is about. */
const noOwnQuotas = { find: async () => undefined };
const definition = { kind: 'graph', nodes: [{ id: 'greet', type: 'set', values: { greeting: 'hi' } }], edges: [] };

/** Issue 26 point 8: a gateway killed between claiming an Idempotency-Key and appending `run.queued`. */
describe('a retried start whose key names a run that was never queued', () => {
  const namespace = testNamespace();
  const quotas = { maxRunning: 100, startsPerMinute: 10_000, dailyTokenBudget: null, dailyCostBudgetUsd: null, dispatchWindow: 100 };
  let bus: Bus;
  let db: Kysely<GatewayTables>;
  let drop: () => Promise<void>;
  let keys: IdempotencyKeysRepository;
  let starter: RunStarter;

  beforeAll(async () => {
    bus = await testBus(namespace, 'orphaned-key-test');
    await provisionStreams(bus);
    ({ db, drop } = await openTestSchema<GatewayTables>('gateway', namespace, gatewayMigrations));
    const logger = createLogger('orphaned-key-test', { level: 'fatal' });
    keys = new IdempotencyKeysRepository(db, 24);
    await new WorkflowCatalogRepository(db).save(T, 'wf', definition);
    starter = new RunStarter({
      bus,
      catalog: new WorkflowCatalogRepository(db),
      agents: new AgentCatalogRepository(db),
      keys,
      admission: new RunAdmission(bus, db, new AdmissionRepository(), quotas, logger),
      quotas: new StartQuotas(db, bus, noOwnQuotas, quotas, 5_000),
      logger,
      webhooks: new WebhookRepository(db),
      files: new FileLibrary(bus, new FileRepository(db), {
        maxBytes: 1_024,
        mediaTypes: new Set(SNIFFABLE_MEDIA_TYPES),
        unreferencedMs: 3_600_000,
      }),
    });
  });
  afterAll(async () => {
    await drop();
    await bus.close();
    await removeStreams(namespace);
  });

  /** What the crashed gateway left: the key claimed for a run id, nothing in that run's log. */
  const orphan = async (key: string, body: unknown): Promise<string> => {
    const runId = ulid();
    const accepted: RunAccepted = {
      runId,
      workflow: { name: 'wf', version: 1 },
      status: 'queued',
      location: `/v1/runs/${runId}`,
      eventsLocation: `/v1/runs/${runId}/events`,
    };
    expect(await keys.claim(T, key, requestHash('wf', startRunBodySchema.parse(body)), runId, accepted)).toBe(true);
    return runId;
  };

  it('creates the run the key names, under its id, and replays it from then on', async () => {
    const body = { input: { name: 'ada' } };
    const runId = await orphan('orphan-1', body);

    const retried = await starter.start(caller, 'wf', body, 'orphan-1', ROOT_CONTEXT);
    expect(retried.accepted.runId).toBe(runId);
    expect(retried.replayed).toBe(false);
    expect((await firstEventOf(bus, runId))?.data.input).toEqual({ name: 'ada' });

    const again = await starter.start(caller, 'wf', body, 'orphan-1', ROOT_CONTEXT);
    expect(again).toEqual({ accepted: retried.accepted, replayed: true });
    expect((await readRunLog(bus, runId)).events.map((e) => e.type)).toEqual(['run.queued']);
  });

  it('lets two gateways completing the same orphaned key together write one run.queued', async () => {
    const body = { input: { name: 'bob' } };
    const runId = await orphan('orphan-2', body);

    const answers = await Promise.all([1, 2, 3].map(() => starter.start(caller, 'wf', body, 'orphan-2', ROOT_CONTEXT)));
    expect(answers.map((a) => a.accepted.runId)).toEqual([runId, runId, runId]);
    // However the three interleaved, exactly one of them created the run.
    expect(answers.filter((a) => !a.replayed).length).toBe(1);
    expect((await readRunLog(bus, runId)).events.map((e) => e.type)).toEqual(['run.queued']);
    expect(await keys.find(T, 'orphan-2')).toMatchObject({ runId });
  });

  it('still refuses the key for a different request', async () => {
    await orphan('orphan-3', { input: { name: 'eve' } });
    await expect(starter.start(caller, 'wf', { input: { name: 'mallory' } }, 'orphan-3', ROOT_CONTEXT)).rejects.toMatchObject({
      code: 'idempotency_key_reused',
    });
  });
});
