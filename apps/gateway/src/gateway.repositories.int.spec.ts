import { createDatabase, dropSchema, gatewayMigrations, migrateToLatest, serviceSchema, type GatewayTables } from '@spindle/db';
import { testEnv, testNamespace } from '@spindle/testing';
import type { Kysely } from 'kysely';
import { IdempotencyKeysRepository } from './runs/idempotency-keys.repository';
import { WorkflowCatalogRepository } from './workflows/workflow-catalog.repository';

describe('gateway repositories on Postgres', () => {
  const schema = serviceSchema('gateway', testNamespace());
  let db: Kysely<GatewayTables>;
  beforeAll(async () => {
    db = createDatabase<GatewayTables>({ url: testEnv().databaseUrl, schema });
    await migrateToLatest(db as Kysely<unknown>, schema, gatewayMigrations);
  });
  afterAll(async () => {
    await dropSchema(db as Kysely<unknown>, schema);
    await db.destroy();
  });

  it('appends a version per changed definition, keeps an unchanged save idempotent, and soft-deletes', async () => {
    const catalog = new WorkflowCatalogRepository(db);
    expect(await catalog.save('wf', { v: 1 })).toEqual({ version: 1, created: true });
    expect(await catalog.save('wf', { v: 1 })).toEqual({ version: 1, created: false });
    expect(await catalog.save('wf', { v: 2 })).toEqual({ version: 2, created: true });
    expect((await catalog.find('wf'))?.definition).toEqual({ v: 2 });
    expect((await catalog.find('wf', 1))?.definition).toEqual({ v: 1 });
    expect(await catalog.find('wf', 3)).toBeUndefined();
    expect((await catalog.versions('wf')).map((v) => v.version)).toEqual([2, 1]);
    expect(await catalog.delete('wf')).toBe(true);
    expect(await catalog.find('wf')).toBeUndefined();
    expect(await catalog.list()).toEqual([]);
    expect(await catalog.save('wf', { v: 2 })).toEqual({ version: 3, created: true });
  });

  it('gives one concurrent claim of an idempotency key and releases it only for its run', async () => {
    const keys = new IdempotencyKeysRepository(db, 24);
    const claims = await Promise.all(['run-a', 'run-b', 'run-c'].map((runId) => keys.claim('k1', 'hash-1', runId, { runId })));
    expect(claims.filter(Boolean)).toHaveLength(1);
    const held = await keys.find('k1');
    expect(held?.requestHash).toBe('hash-1');
    await keys.release('k1', 'someone-else');
    expect(await keys.find('k1')).toBeDefined();
    await keys.release('k1', held!.runId);
    expect(await keys.find('k1')).toBeUndefined();
  });

  it('treats a key past its time to live as free', async () => {
    const keys = new IdempotencyKeysRepository(db, 24);
    await keys.claim('old', 'h', 'run-old', {});
    await db
      .updateTable('idempotency_keys')
      .set({ created_at: new Date(Date.now() - 25 * 3_600_000) })
      .where('key', '=', 'old')
      .execute();
    expect(await keys.find('old')).toBeUndefined();
    expect(await keys.claim('old', 'h2', 'run-new', {})).toBe(true);
    expect((await keys.find('old'))?.runId).toBe('run-new');
  });
});
