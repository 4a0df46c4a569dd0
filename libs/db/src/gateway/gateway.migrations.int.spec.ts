import { testEnv, testNamespace } from '@spindle/testing';
import { sql, type Kysely } from 'kysely';
import { createDatabase, dropSchema, migrateToLatest, serviceSchema } from '../database';
import { gatewayMigrations } from './gateway.migrations';
import type { GatewayTables } from './gateway.tables';

describe('gateway migrations of a catalog from before tenants', () => {
  const schema = serviceSchema('gateway', testNamespace());
  let db: Kysely<GatewayTables>;
  beforeAll(() => {
    db = createDatabase<GatewayTables>({ url: testEnv().databaseUrl, schema, maxConnections: 2 });
  });
  afterAll(async () => {
    await dropSchema(db as Kysely<unknown>, schema);
    await db.destroy();
  });

  it('gives every workflow, agent and idempotency key to the default tenant, and makes names unique per tenant', async () => {
    const before = {
      '0001_catalog_and_idempotency': gatewayMigrations['0001_catalog_and_idempotency'],
      '0002_agent_catalog': gatewayMigrations['0002_agent_catalog'],
    };
    await migrateToLatest(db as Kysely<unknown>, schema, before);
    await sql`insert into workflows (name, latest_version, created_at, updated_at) values ('wf', 1, now(), now())`.execute(db);
    await sql`insert into workflow_versions (name, version, definition, definition_hash, created_at)
      values ('wf', 1, '{}', 'h', now())`.execute(db);
    await sql`insert into agents (name, spec, version, created_at, updated_at) values ('helper', '{}', 1, now(), now())`.execute(db);
    await sql`insert into idempotency_keys (key, request_hash, run_id, response, created_at) values ('k', 'h', 'r', '{}', now())`.execute(
      db,
    );

    await migrateToLatest(db as Kysely<unknown>, schema, gatewayMigrations);

    expect(await db.selectFrom('tenants').select(['id', 'operator']).execute()).toEqual([{ id: 'default', operator: true }]);
    for (const table of ['workflows', 'workflow_versions', 'agents', 'idempotency_keys'] as const) {
      expect(await db.selectFrom(table).select('tenant_id').execute()).toEqual([{ tenant_id: 'default' }]);
    }
    // An agent saved before versions were kept has its current spec as its one version.
    expect(await db.selectFrom('agent_versions').select(['tenant_id', 'name', 'version', 'spec']).execute()).toEqual([
      { tenant_id: 'default', name: 'helper', version: 1, spec: {} },
    ]);
    await sql`insert into tenants (id, name, created_at, updated_at) values ('acme', 'Acme', now(), now())`.execute(db);
    await sql`insert into workflows (tenant_id, name, latest_version, created_at, updated_at)
      values ('acme', 'wf', 1, now(), now())`.execute(db);
    await expect(
      sql`insert into workflows (tenant_id, name, latest_version, created_at, updated_at) values ('acme', 'wf', 1, now(), now())`.execute(
        db,
      ),
    ).rejects.toThrow(/duplicate key/);
    // A row of a tenant that does not exist is refused.
    await expect(
      sql`insert into agents (tenant_id, name, spec, version, created_at, updated_at) values ('ghost', 'a', '{}', 1, now(), now())`.execute(
        db,
      ),
    ).rejects.toThrow(/foreign key/);
  });
});
