import { planCatalogSave } from '@spindle/contracts';
import type { GatewayTables } from '@spindle/db';
import type { AgentSpec } from '@spindle/engine';
import type { Kysely } from 'kysely';

export interface StoredAgent {
  name: string;
  version: number;
  spec: AgentSpec;
  updatedAt: string;
}

/** The agent catalog: named agent specs that patterns use by reference. */
export class AgentCatalogRepository {
  constructor(private readonly db: Kysely<GatewayTables>) {}

  /** Saves the spec; returns its version (bumped on every change, unchanged when identical). */
  async save(tenant: string, spec: AgentSpec): Promise<{ version: number; created: boolean }> {
    const json = JSON.stringify(spec);
    return this.db.transaction().execute(async (tx) => {
      const now = new Date();
      const current = await tx
        .selectFrom('agents')
        .select(['spec', 'version', 'deleted_at'])
        .where('tenant_id', '=', tenant)
        .where('name', '=', spec.name)
        .forUpdate()
        .executeTakeFirst();
      const plan = planCatalogSave(
        current && { version: current.version, content: current.spec, deleted: current.deleted_at !== null },
        spec,
      );
      if (!plan.created) return plan;
      const { version } = plan;
      await tx
        .insertInto('agents')
        .values({ tenant_id: tenant, name: spec.name, spec: json, version, created_at: now, updated_at: now })
        .onConflict((oc) => oc.columns(['tenant_id', 'name']).doUpdateSet({ spec: json, version, updated_at: now, deleted_at: null }))
        .execute();
      await tx.insertInto('agent_versions').values({ tenant_id: tenant, name: spec.name, version, spec: json, created_at: now }).execute();
      return { version, created: true };
    });
  }

  async find(tenant: string, name: string): Promise<StoredAgent | undefined> {
    const row = await this.db
      .selectFrom('agents')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .where('name', '=', name)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return row && { name: row.name, version: row.version, spec: row.spec as AgentSpec, updatedAt: row.updated_at.toISOString() };
  }

  /** One saved version of an agent that is not deleted. */
  async findVersion(tenant: string, name: string, version: number): Promise<StoredAgent | undefined> {
    const row = await this.db
      .selectFrom('agent_versions as v')
      .innerJoin('agents as a', (j) => j.onRef('a.tenant_id', '=', 'v.tenant_id').onRef('a.name', '=', 'v.name'))
      .select(['v.name', 'v.version', 'v.spec', 'v.created_at'])
      .where('v.tenant_id', '=', tenant)
      .where('v.name', '=', name)
      .where('v.version', '=', version)
      .where('a.deleted_at', 'is', null)
      .executeTakeFirst();
    return row && { name: row.name, version: row.version, spec: row.spec as AgentSpec, updatedAt: row.created_at.toISOString() };
  }

  /** Newest first. */
  async versions(tenant: string, name: string): Promise<Array<{ version: number; createdAt: string }>> {
    const rows = await this.db
      .selectFrom('agent_versions')
      .select(['version', 'created_at'])
      .where('tenant_id', '=', tenant)
      .where('name', '=', name)
      .orderBy('version', 'desc')
      .execute();
    return rows.map((r) => ({ version: r.version, createdAt: r.created_at.toISOString() }));
  }

  async list(tenant: string): Promise<StoredAgent[]> {
    const rows = await this.db
      .selectFrom('agents')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .where('deleted_at', 'is', null)
      .orderBy('name')
      .execute();
    return rows.map((row) => ({
      name: row.name,
      version: row.version,
      spec: row.spec as AgentSpec,
      updatedAt: row.updated_at.toISOString(),
    }));
  }

  async delete(tenant: string, name: string): Promise<boolean> {
    const result = await this.db
      .updateTable('agents')
      .set({ deleted_at: new Date() })
      .where('tenant_id', '=', tenant)
      .where('name', '=', name)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
