import { createDatabase, dropSchema, gatewayMigrations, migrateToLatest, serviceSchema, type GatewayTables } from '@spindle/db';
import { generateApiKey, parseApiKey } from '@spindle/identity';
import { testEnv, testNamespace } from '@spindle/testing';
import type { Kysely } from 'kysely';
import { AdmissionRepository, TenantsRepository } from '@spindle/control-plane';
import { ApiKeysRepository } from './identity/api-keys.repository';
import { AuditLogRepository } from './identity/audit-log.repository';
import { AuditTrail } from './identity/audit-trail';
import type { Principal } from '@spindle/contracts';
import type { FastifyRequest } from 'fastify';
import pino from 'pino';

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

  it('keeps every entry of requests audited together (they share inserts), each with its own actor and source', async () => {
    const trail = new AuditTrail(new AuditLogRepository(db), pino({ level: 'silent' }));
    const caller = { tenant: 'acme', actor: ADA } as Principal;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        trail.record(caller, { ip: `10.0.1.${i}` } as FastifyRequest, {
          action: 'run.started',
          target: { kind: 'run', id: `together-${i}` },
        }),
      ),
    );
    const { entries } = await new AuditLogRepository(db).list({ tenant: 'acme', action: 'run.started', limit: 50 });
    const together = entries.filter((e) => e.target.id.startsWith('together-'));
    expect(together.map((e) => e.target.id).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `together-${i}`).sort());
    expect(new Set(together.map((e) => e.source)).size).toBe(20);
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
