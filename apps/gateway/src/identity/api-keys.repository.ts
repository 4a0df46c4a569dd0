import { actorSchema, scopeSchema, type Actor, type ApiKeyView, type Scope } from '@spindle/contracts';
import type { GatewayTables } from '@spindle/db';
import type { StoredApiKey } from '@spindle/identity';
import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';

export interface NewKeyRow {
  id: string;
  tenant: string;
  name: string;
  scopes: readonly Scope[];
  secretHash: string;
  createdBy: Actor;
  expiresAt: Date | null;
}

const scopesOf = z.array(scopeSchema);

/** API keys (hashes only) and who made and revoked them. */
export class ApiKeysRepository {
  constructor(private readonly db: Kysely<GatewayTables>) {}

  async insert(key: NewKeyRow): Promise<ApiKeyView> {
    const row = await this.db
      .insertInto('api_keys')
      .values({
        id: key.id,
        tenant_id: key.tenant,
        name: key.name,
        scopes: JSON.stringify(key.scopes),
        secret_hash: key.secretHash,
        created_at: new Date(),
        created_by: JSON.stringify(key.createdBy),
        expires_at: key.expiresAt,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toView(row);
  }

  /** For verification: the stored hash and the key's tenant (and whether it is the operator). */
  async findForVerification(id: string): Promise<StoredApiKey | undefined> {
    const row = await this.db
      .selectFrom('api_keys')
      .innerJoin('tenants', 'tenants.id', 'api_keys.tenant_id')
      .select([
        'api_keys.id',
        'api_keys.name',
        'api_keys.tenant_id',
        'tenants.operator',
        'api_keys.scopes',
        'api_keys.secret_hash',
        'api_keys.expires_at',
        'api_keys.revoked_at',
      ])
      .where('api_keys.id', '=', id)
      .executeTakeFirst();
    return (
      row && {
        id: row.id,
        name: row.name,
        tenant: row.tenant_id,
        operator: row.operator,
        scopes: scopesOf.parse(row.scopes),
        secretHash: row.secret_hash,
        expiresAt: row.expires_at,
        revokedAt: row.revoked_at,
      }
    );
  }

  async find(tenant: string, id: string): Promise<ApiKeyView | undefined> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('tenant_id', '=', tenant).where('id', '=', id).executeTakeFirst();
    return row && toView(row);
  }

  /** Newest first. */
  async list(tenant: string): Promise<ApiKeyView[]> {
    const rows = await this.db.selectFrom('api_keys').selectAll().where('tenant_id', '=', tenant).orderBy('created_at', 'desc').execute();
    return rows.map(toView);
  }

  /** Revokes a live key; undefined when the tenant has no such key, the key as it is when it was revoked already. */
  async revoke(tenant: string, id: string, by: Actor): Promise<ApiKeyView | undefined> {
    const row = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: new Date(), revoked_by: JSON.stringify(by) })
      .where('tenant_id', '=', tenant)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    return row ? toView(row) : this.find(tenant, id);
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}

function toView(row: Selectable<GatewayTables['api_keys']>): ApiKeyView {
  return {
    id: row.id,
    tenant: row.tenant_id,
    name: row.name,
    scopes: scopesOf.parse(row.scopes),
    createdAt: row.created_at.toISOString(),
    createdBy: actorSchema.parse(row.created_by),
    expiresAt: row.expires_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
    revokedBy: row.revoked_by === null ? null : actorSchema.parse(row.revoked_by),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
  };
}
