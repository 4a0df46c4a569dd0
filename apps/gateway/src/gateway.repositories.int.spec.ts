import { createDatabase, dropSchema, gatewayMigrations, migrateToLatest, serviceSchema, type GatewayTables } from '@spindle/db';
import { generateApiKey, parseApiKey } from '@spindle/identity';
import { testEnv, testNamespace } from '@spindle/testing';
import type { Kysely } from 'kysely';
import { AdmissionRepository } from '@spindle/control-plane';
import { AgentCatalogRepository } from './agents/agent-catalog.repository';
import { ApiKeysRepository } from './identity/api-keys.repository';
import { AuditLogRepository } from './identity/audit-log.repository';
import { TenantsRepository } from './identity/tenants.repository';
import { IdempotencyKeysRepository } from './runs/idempotency-keys.repository';
import { WorkflowCatalogRepository } from './workflows/workflow-catalog.repository';

const T = 'default';
const ADA = { kind: 'key' as const, id: 'adakey0000000000', name: 'ada' };

describe('gateway repositories on Postgres', () => {
  const schema = serviceSchema('gateway', testNamespace());
  let db: Kysely<GatewayTables>;
  beforeAll(async () => {
    db = createDatabase<GatewayTables>({ url: testEnv().databaseUrl, schema });
    await migrateToLatest(db as Kysely<unknown>, schema, gatewayMigrations);
    await new TenantsRepository(db).create('acme', 'Acme');
  });
  afterAll(async () => {
    await dropSchema(db as Kysely<unknown>, schema);
    await db.destroy();
  });

  it('appends a version per changed definition, keeps an unchanged save idempotent, and soft-deletes', async () => {
    const catalog = new WorkflowCatalogRepository(db);
    expect(await catalog.save(T, 'wf', { v: 1 })).toEqual({ version: 1, created: true });
    expect(await catalog.save(T, 'wf', { v: 1 })).toEqual({ version: 1, created: false });
    expect(await catalog.save(T, 'wf', { v: 2 })).toEqual({ version: 2, created: true });
    expect((await catalog.find(T, 'wf'))?.definition).toEqual({ v: 2 });
    expect((await catalog.find(T, 'wf', 1))?.definition).toEqual({ v: 1 });
    expect(await catalog.find(T, 'wf', 3)).toBeUndefined();
    expect((await catalog.versions(T, 'wf')).map((v) => v.version)).toEqual([2, 1]);
    expect(await catalog.delete(T, 'wf')).toBe(true);
    expect(await catalog.find(T, 'wf')).toBeUndefined();
    expect(await catalog.list(T)).toEqual([]);
    expect(await catalog.save(T, 'wf', { v: 2 })).toEqual({ version: 3, created: true });
  });

  it('both catalogs call a save unchanged by one rule: the live entry holds the same value, keys in any order', async () => {
    const workflows = new WorkflowCatalogRepository(db);
    const agents = new AgentCatalogRepository(db);
    const spec = { name: 'same-rule', model: 'offline:echo', instructions: 'hi', tools: ['a', 'b'] };
    const reordered = { tools: ['a', 'b'], instructions: 'hi', model: 'offline:echo', name: 'same-rule' };
    for (const save of [(v: object) => workflows.save(T, 'same-rule', v), (v: object) => agents.save(T, v as never)]) {
      expect(await save(spec)).toEqual({ version: 1, created: true });
      expect(await save(reordered)).toEqual({ version: 1, created: false });
      expect(await save({ ...spec, tools: ['b', 'a'] })).toEqual({ version: 2, created: true });
    }
    expect(await workflows.delete(T, 'same-rule')).toBe(true);
    expect(await agents.delete(T, 'same-rule')).toBe(true);
    expect(await workflows.save(T, 'same-rule', { ...spec, tools: ['b', 'a'] })).toEqual({ version: 3, created: true });
    expect(await agents.save(T, { ...spec, tools: ['b', 'a'] } as never)).toEqual({ version: 3, created: true });
    await workflows.delete(T, 'same-rule');
    await agents.delete(T, 'same-rule');
  });

  it("keeps each tenant's names apart: the same name is two workflows and two agents, neither sees the other", async () => {
    const catalog = new WorkflowCatalogRepository(db);
    expect(await catalog.save('acme', 'shared', { owner: 'acme' })).toEqual({ version: 1, created: true });
    expect(await catalog.save(T, 'shared', { owner: 'default' })).toEqual({ version: 1, created: true });
    expect((await catalog.find('acme', 'shared'))?.definition).toEqual({ owner: 'acme' });
    expect((await catalog.list('acme')).map((w) => w.name)).toEqual(['shared']);
    expect(await catalog.delete('acme', 'shared')).toBe(true);
    expect((await catalog.find(T, 'shared'))?.definition).toEqual({ owner: 'default' });

    const agents = new AgentCatalogRepository(db);
    const spec = (instructions: string) => ({ name: 'helper', model: 'offline:echo', instructions }) as never;
    await agents.save('acme', spec('acme'));
    await agents.save(T, spec('default'));
    expect((await agents.find('acme', 'helper'))?.spec).toMatchObject({ instructions: 'acme' });
    expect((await agents.list(T)).map((a) => (a.spec as { instructions: string }).instructions)).toEqual(['default']);
  });

  it('gives one concurrent claim of an idempotency key and releases it only for its run', async () => {
    const keys = new IdempotencyKeysRepository(db, 24);
    const claims = await Promise.all(['run-a', 'run-b', 'run-c'].map((runId) => keys.claim(T, 'k1', 'hash-1', runId, { runId })));
    expect(claims.filter(Boolean)).toHaveLength(1);
    const held = await keys.find(T, 'k1');
    expect(held?.requestHash).toBe('hash-1');
    // Another tenant's key of the same text is its own.
    expect(await keys.find('acme', 'k1')).toBeUndefined();
    expect(await keys.claim('acme', 'k1', 'hash-2', 'run-acme', {})).toBe(true);
    await keys.release(T, 'k1', 'someone-else');
    expect(await keys.find(T, 'k1')).toBeDefined();
    await keys.release(T, 'k1', held!.runId);
    expect(await keys.find(T, 'k1')).toBeUndefined();
    expect((await keys.find('acme', 'k1'))?.runId).toBe('run-acme');
  });

  it('treats a key past its time to live as free', async () => {
    const keys = new IdempotencyKeysRepository(db, 24);
    await keys.claim(T, 'old', 'h', 'run-old', {});
    await db
      .updateTable('idempotency_keys')
      .set({ created_at: new Date(Date.now() - 25 * 3_600_000) })
      .where('key', '=', 'old')
      .execute();
    expect(await keys.find(T, 'old')).toBeUndefined();
    expect(await keys.claim(T, 'old', 'h2', 'run-new', {})).toBe(true);
    expect((await keys.find(T, 'old'))?.runId).toBe('run-new');
  });

  it('stores a key as its hash only, finds it for verification with its tenant, and revokes it once', async () => {
    const keys = new ApiKeysRepository(db);
    const made = generateApiKey();
    const view = await keys.insert({
      id: made.id,
      tenant: 'acme',
      name: 'ci',
      scopes: ['runs:read'],
      secretHash: made.secretHash,
      createdBy: ADA,
      expiresAt: null,
    });
    expect(view).toMatchObject({ id: made.id, tenant: 'acme', scopes: ['runs:read'], createdBy: ADA, revokedAt: null });
    expect(JSON.stringify(await db.selectFrom('api_keys').selectAll().execute())).not.toContain(parseApiKey(made.token)!.secret);
    expect(await keys.findForVerification(made.id)).toMatchObject({ tenant: 'acme', operator: false, secretHash: made.secretHash });
    expect(await keys.find(T, made.id)).toBeUndefined();
    expect(await keys.revoke(T, made.id, ADA)).toBeUndefined();
    const revoked = await keys.revoke('acme', made.id, ADA);
    expect(revoked?.revokedBy).toEqual(ADA);
    // Revoking again changes nothing: the first revocation stands.
    expect((await keys.revoke('acme', made.id, { ...ADA, name: 'other' }))?.revokedBy).toEqual(ADA);
  });

  it('pages the audit trail newest first, filtered by action, actor and target, one tenant at a time', async () => {
    const audit = new AuditLogRepository(db);
    for (let i = 0; i < 5; i++) {
      await audit.append({
        tenant: 'acme',
        actor: ADA,
        action: 'workflow.saved',
        target: { kind: 'workflow', id: `w${i}` },
        source: '10.0.0.1',
      });
    }
    await audit.append({ tenant: T, actor: ADA, action: 'run.started', target: { kind: 'run', id: 'r1' }, source: null });
    const first = await audit.list({ tenant: 'acme', limit: 3 });
    expect(first.entries.map((e) => e.target.id)).toEqual(['w4', 'w3', 'w2']);
    expect(first.more).toBe(true);
    const second = await audit.list({ tenant: 'acme', limit: 3, beforeId: first.entries[2].id });
    expect(second).toMatchObject({ entries: [{ target: { id: 'w1' } }, { target: { id: 'w0' } }], more: false });
    expect((await audit.list({ tenant: 'acme', targetKind: 'workflow', targetId: 'w3', limit: 10 })).entries).toHaveLength(1);
    expect((await audit.list({ tenant: 'acme', action: 'run.started', limit: 10 })).entries).toEqual([]);
    expect((await audit.list({ tenant: T, actorId: ADA.id, limit: 10 })).entries.map((e) => e.action)).toEqual(['run.started']);
  });

  it('admits a start at once only while nothing waits and there is room, however many arrive together', async () => {
    const rows = new AdmissionRepository();
    const limits = { window: 3, defaultMaxRunning: 2 };
    const start = (runId: string, tenant: string) =>
      rows.enqueueAndAdmit(db, { runId, tenant, queuedAt: new Date().toISOString(), trace: null }, limits);
    // Twelve starts of one tenant at the same moment: its limit of two is never passed.
    const states = await Promise.all(Array.from({ length: 12 }, (_, i) => start(`adm-a-${i}`, T)));
    expect(states.filter((s) => s === 'admitted')).toHaveLength(2);
    expect(states.filter((s) => s === 'waiting')).toHaveLength(10);
    // Another tenant has room of its own, but runs wait: it queues behind them instead of jumping ahead.
    expect(await start('adm-b-0', 'acme')).toBe('waiting');
    expect(await start('adm-a-0', T)).toBe('exists');
    // Queued first by the projection, which has no trace context: the gateway's start adds its own.
    await rows.enqueue(db, [{ runId: 'adm-c-0', tenant: T, queuedAt: new Date().toISOString(), trace: null }]);
    const traced = { runId: 'adm-c-0', tenant: T, queuedAt: new Date().toISOString(), trace: { traceparent: '00-ab-cd-01' } };
    expect(await rows.enqueueAndAdmit(db, traced, limits)).toBe('exists');
    const row = await db.selectFrom('run_admissions').select('trace').where('run_id', '=', 'adm-c-0').executeTakeFirstOrThrow();
    expect(row.trace).toEqual({ traceparent: '00-ab-cd-01' });
    expect(await rows.admittedCount(db)).toBe(2);
    expect(await rows.anyWaiting(db)).toBe(true);
  });
});
