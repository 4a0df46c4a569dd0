import { SpindleError, type Actor, type Webhook, type WebhookDelivery, type WebhookEventType } from '@spindle/contracts';
import { olderThanCursor, type GatewayTables, type KeysetCursor } from '@spindle/db';
import { sql, type Kysely, type Selectable } from 'kysely';

type WebhookRow = Selectable<GatewayTables['webhooks']>;
export type DeliveryRow = Selectable<GatewayTables['webhook_deliveries']>;

/** A delivery taken to be attempted: where to, signed with what. */
export interface DueDelivery {
  id: string;
  url: string;
  secret: string;
  payload: unknown;
  attempts: number;
  createdAt: Date;
}

/** Subscriptions, and their deliveries with every attempt. */
export class WebhookRepository {
  constructor(private readonly db: Kysely<GatewayTables>) {}

  async create(
    webhook: {
      id: string;
      tenant: string;
      url: string;
      events: readonly WebhookEventType[];
      workflow?: string;
      threadId?: string;
      scheduleId?: string;
      namedOnly?: boolean;
    },
    secret: string,
    by: Actor,
  ): Promise<void> {
    await this.db
      .insertInto('webhooks')
      .values({
        id: webhook.id,
        tenant_id: webhook.tenant,
        url: webhook.url,
        events: JSON.stringify(webhook.events),
        workflow: webhook.workflow ?? null,
        thread_id: webhook.threadId ?? null,
        schedule_id: webhook.scheduleId ?? null,
        named_only: webhook.namedOnly ?? false,
        secret,
        created_at: new Date(),
        created_by: JSON.stringify(by),
        deleted_at: null,
      })
      .execute();
  }

  async find(tenant: string, id: string): Promise<Webhook | undefined> {
    const row = await this.live(tenant).where('id', '=', id).executeTakeFirst();
    return row && webhookView(row);
  }

  /** `404 not_found` naming the first of `ids` the tenant has no (live) subscription of. */
  async requireAll(tenant: string, ids: readonly string[]): Promise<void> {
    const found = new Set(
      (
        await this.live(tenant)
          .select('id')
          .where('id', 'in', [...ids])
          .execute()
      ).map((r) => r.id),
    );
    const missing = ids.find((id) => !found.has(id));
    if (missing) throw new SpindleError('not_found', `no webhook with id "${missing}"`);
  }

  async list(tenant: string): Promise<Webhook[]> {
    return (await this.live(tenant).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1_000).execute()).map(webhookView);
  }

  /** Soft delete: its deliveries stay readable; the ones not made yet are canceled. */
  async delete(tenant: string, id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const gone = await trx
        .updateTable('webhooks')
        .set({ deleted_at: new Date() })
        .where('tenant_id', '=', tenant)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      if (gone.numUpdatedRows === 0n) return false;
      await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'canceled' })
        .where('webhook_id', '=', id)
        .where('status', '=', 'pending')
        .execute();
      return true;
    });
  }

  /** Newest first, `limit` at a time after the cursor's delivery, each with its attempts. */
  async deliveries(webhookId: string, limit: number, after?: KeysetCursor): Promise<WebhookDelivery[]> {
    let query = this.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId);
    if (after) query = query.where(olderThanCursor(after));
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    const attempts = rows.length
      ? await this.db
          .selectFrom('webhook_attempts')
          .selectAll()
          .where(
            'delivery_id',
            'in',
            rows.map((r) => r.id),
          )
          .orderBy('attempt')
          .execute()
      : [];
    return rows.map((row) => ({
      deliveryId: row.id,
      eventId: row.event_id,
      eventType: row.event_type as WebhookEventType,
      runId: row.run_id,
      status: row.status,
      attempts: attempts
        .filter((a) => a.delivery_id === row.id)
        .map((a) => ({
          attempt: a.attempt,
          at: a.at.toISOString(),
          statusCode: a.status_code,
          error: a.error,
          durationMs: a.duration_ms,
          response: a.response,
        })),
      nextAttemptAt: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
      createdAt: row.created_at.toISOString(),
      deliveredAt: row.delivered_at?.toISOString() ?? null,
    }));
  }

  /**
   * Takes up to `limit` deliveries that are due, leasing each for `leaseMs` (its next attempt time
   * moves past the lease), so another gateway does not attempt it at the same time.
   */
  async takeDue(limit: number, leaseMs: number): Promise<DueDelivery[]> {
    return this.db.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
        .select(['d.id', 'w.url', 'w.secret', 'd.payload', 'd.attempts', 'd.created_at'])
        .where('d.status', '=', 'pending')
        .where('d.next_attempt_at', '<=', new Date())
        .orderBy('d.next_attempt_at')
        .limit(limit)
        .forUpdate('d')
        .skipLocked()
        .execute();
      if (rows.length === 0) return [];
      await trx
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: new Date(Date.now() + leaseMs) })
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        )
        .execute();
      return rows.map((r) => ({
        id: r.id,
        url: r.url,
        secret: r.secret,
        payload: r.payload,
        attempts: r.attempts,
        createdAt: r.created_at,
      }));
    });
  }

  /** Records an attempt and what it leads to: delivered, another try at `retryAt`, or dead. */
  async recordAttempt(
    delivery: DueDelivery,
    attempt: { at: Date; statusCode: number | null; error: string | null; durationMs: number; response: string | null },
    outcome: { status: 'delivered' } | { status: 'pending'; retryAt: Date } | { status: 'dead' },
  ): Promise<void> {
    const number = delivery.attempts + 1;
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('webhook_attempts')
        .values({
          delivery_id: delivery.id,
          attempt: number,
          at: attempt.at,
          status_code: attempt.statusCode,
          error: attempt.error,
          duration_ms: attempt.durationMs,
          response: attempt.response,
        })
        .execute();
      await trx
        .updateTable('webhook_deliveries')
        .set({
          attempts: number,
          // A delivery deleted meanwhile stays canceled.
          status: sql`case when status = 'canceled' then status else ${outcome.status} end`,
          ...(outcome.status === 'pending' ? { next_attempt_at: outcome.retryAt } : {}),
          ...(outcome.status === 'delivered' ? { delivered_at: attempt.at } : {}),
        })
        .where('id', '=', delivery.id)
        .execute();
    });
  }

  private live(tenant: string) {
    return this.db.selectFrom('webhooks').selectAll().where('tenant_id', '=', tenant).where('deleted_at', 'is', null);
  }
}

const webhookView = (row: WebhookRow): Webhook => ({
  webhookId: row.id,
  url: row.url,
  events: row.events as WebhookEventType[],
  workflow: row.workflow,
  threadId: row.thread_id,
  scheduleId: row.schedule_id,
  namedOnly: row.named_only,
  createdAt: row.created_at.toISOString(),
  createdBy: row.created_by as Actor,
});
