import type { Tenant, TenantQuotas } from '@spindle/contracts';
import type { GatewayTables } from '@spindle/db';
import type { Kysely, Selectable } from 'kysely';

/** Tenants and their quotas (a table of the gateway's schema, read by the control plane for quotas). */
export class TenantsRepository {
  constructor(private readonly db: Kysely<GatewayTables>) {}

  async find(id: string): Promise<Tenant | undefined> {
    const row = await this.db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toTenant(row);
  }

  async list(): Promise<Tenant[]> {
    const rows = await this.db.selectFrom('tenants').selectAll().orderBy('id').execute();
    return rows.map(toTenant);
  }

  /** `false` when a tenant with that id exists already. */
  async create(id: string, name: string): Promise<boolean> {
    const now = new Date();
    const inserted = await this.db
      .insertInto('tenants')
      .values({ id, name, operator: false, created_at: now, updated_at: now })
      .onConflict((oc) => oc.column('id').doNothing())
      .returning('id')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  async setQuotas(id: string, quotas: TenantQuotas): Promise<Tenant | undefined> {
    const row = await this.db
      .updateTable('tenants')
      .set({
        max_running: quotas.maxRunning,
        starts_per_minute: quotas.startsPerMinute,
        daily_token_budget: quotas.dailyTokenBudget,
        daily_cost_budget_usd: quotas.dailyCostBudgetUsd,
        updated_at: new Date(),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row && toTenant(row);
  }
}

function toTenant(row: Selectable<GatewayTables['tenants']>): Tenant {
  return {
    id: row.id,
    name: row.name,
    operator: row.operator,
    quotas: {
      maxRunning: row.max_running,
      startsPerMinute: row.starts_per_minute,
      dailyTokenBudget: row.daily_token_budget === null ? null : Number(row.daily_token_budget),
      dailyCostBudgetUsd: row.daily_cost_budget_usd,
    },
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
