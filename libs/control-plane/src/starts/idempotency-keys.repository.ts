import type { GatewayTables } from '@spindle/db';
import { sql, type Kysely } from 'kysely';

export interface StoredIdempotentResponse {
  requestHash: string;
  runId: string;
  response: unknown;
}

/** Idempotency keys of run starts and forks, each tenant's own, kept in Postgres so they survive restarts; expire after a TTL. */
export class IdempotencyKeysRepository {
  constructor(
    private readonly db: Kysely<GatewayTables>,
    private readonly ttlHours: number,
  ) {}

  async find(tenant: string, key: string): Promise<StoredIdempotentResponse | undefined> {
    const row = await this.db
      .selectFrom('idempotency_keys')
      .select(['request_hash', 'run_id', 'response'])
      .where('tenant_id', '=', tenant)
      .where('key', '=', key)
      .where('created_at', '>', sql<Date>`now() - make_interval(hours => ${this.ttlHours})`)
      .executeTakeFirst();
    return row && { requestHash: row.request_hash, runId: row.run_id, response: row.response };
  }

  /** Claims the key; `false` when another request holds it (then `find` tells what it holds). */
  async claim(tenant: string, key: string, requestHash: string, runId: string, response: unknown): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      // An expired key may be reused.
      await tx
        .deleteFrom('idempotency_keys')
        .where('tenant_id', '=', tenant)
        .where('key', '=', key)
        .where('created_at', '<=', sql<Date>`now() - make_interval(hours => ${this.ttlHours})`)
        .execute();
      const inserted = await tx
        .insertInto('idempotency_keys')
        .values({
          tenant_id: tenant,
          key,
          request_hash: requestHash,
          run_id: runId,
          response: JSON.stringify(response),
          created_at: new Date(),
        })
        .onConflict((oc) => oc.columns(['tenant_id', 'key']).doNothing())
        .returning('key')
        .executeTakeFirst();
      return inserted !== undefined;
    });
  }

  /** Gives a key back when the run it named could not be queued. */
  async release(tenant: string, key: string, runId: string): Promise<void> {
    await this.db
      .deleteFrom('idempotency_keys')
      .where('tenant_id', '=', tenant)
      .where('key', '=', key)
      .where('run_id', '=', runId)
      .execute();
  }
}
