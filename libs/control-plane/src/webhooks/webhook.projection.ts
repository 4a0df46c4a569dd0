import { DEFAULT_TENANT, readsOnly, runEventTypes, type RunEvent, type WebhookEvent } from '@spindle/contracts';
import {
  webhookEventAfter,
  webhookSubscribes,
  type WebhookEventBody,
  type WebhookRun,
  type WebhookSubscription,
} from '@spindle/projections';
import type { GatewayTables } from '@spindle/db';
import type { Fold } from '@spindle/projection-kit';
import { sql, type Transaction } from 'kysely';
import { ulid } from 'ulid';

/** A run as its `run.queued` described it, with its workflow's version for the payload. */
type RunInfo = WebhookRun & { version: number };

/** Deliveries per insert statement (ten columns each). */
const DELIVERIES_PER_INSERT = 1_000;

/** A run event a subscription may be told of. */
type Told = { e: RunEvent; event: WebhookEventBody };

/**
 * The run events subscriptions are told of, turned into deliveries (one per subscription and
 * event, made once however often the log is folded). A run's tenant, workflow and thread come
 * from its `run.queued`, kept until its end.
 */
export class WebhookProjection implements Fold<GatewayTables> {
  /** A run's `run.queued`, and the events a subscription may be told of. */
  readonly reads = readsOnly(runEventTypes.filter((type) => type === 'run.queued' || webhookEventAfter[type] !== null));

  async apply(trx: Transaction<GatewayTables>, events: readonly RunEvent[]): Promise<void> {
    const queued = new Map<string, RunInfo>();
    const ended = new Set<string>();
    const told: Told[] = [];
    for (const e of events) {
      if (e.type === 'run.queued') {
        queued.set(e.runId, {
          tenant: e.data.tenant ?? DEFAULT_TENANT,
          workflow: e.data.workflow.name,
          version: e.data.workflow.version,
          threadId: e.data.thread?.id ?? null,
          scheduleId: e.data.scheduledBy?.scheduleId ?? null,
          named: e.data.webhooks ?? [],
        });
        continue;
      }
      const event = (webhookEventAfter[e.type] as ((e: RunEvent) => WebhookEventBody) | null)?.(e);
      if (!event) continue;
      told.push({ e, event });
      if (e.type !== 'run.awaiting') ended.add(e.runId);
    }
    await this.deliver(trx, told, queued);
    // One insert for the batch's new runs, but those that also ended in it; then the ended ones go.
    const open = [...queued].filter(([runId]) => !ended.has(runId));
    if (open.length)
      await trx
        .insertInto('webhook_runs')
        .values(
          open.map(([runId, info]) => ({
            run_id: runId,
            tenant_id: info.tenant,
            workflow: info.workflow,
            workflow_version: info.version,
            thread_id: info.threadId,
            schedule_id: info.scheduleId,
            webhook_ids: info.named.length ? JSON.stringify(info.named) : null,
          })),
        )
        .onConflict((oc) => oc.column('run_id').doNothing())
        .execute();
    if (ended.size)
      await trx
        .deleteFrom('webhook_runs')
        .where('run_id', 'in', [...ended])
        .execute();
  }

  async reset(trx: Transaction<GatewayTables>): Promise<void> {
    // Deliveries stay: made once per subscription and event, a rebuild adds none twice.
    await sql`truncate table webhook_runs`.execute(trx);
  }

  async erase(trx: Transaction<GatewayTables>, runIds: readonly string[]): Promise<void> {
    await trx
      .deleteFrom('webhook_runs')
      .where('run_id', 'in', [...runIds])
      .execute();
    // A delivery carries the run's output: it goes with the run.
    await trx
      .deleteFrom('webhook_deliveries')
      .where('run_id', 'in', [...runIds])
      .execute();
  }

  /**
   * The batch's deliveries, one per subscription and event, in three statements however many runs
   * the batch ends (the last split beyond a thousand deliveries): the runs queued before the
   * batch, their tenants' subscriptions to the batch's event types, and the deliveries.
   */
  private async deliver(trx: Transaction<GatewayTables>, told: readonly Told[], queued: ReadonlyMap<string, RunInfo>): Promise<void> {
    if (told.length === 0) return;
    const runs = new Map([
      ...(await this.storedRuns(
        trx,
        told.map((t) => t.e.runId).filter((id) => !queued.has(id)),
      )),
      ...queued,
    ]);
    const hooks = await this.subscriptions(
      trx,
      // Only the tenants of runs with something to tell: a run merely queued in the batch asks for nothing.
      [...new Set(told.flatMap((t) => runs.get(t.e.runId)?.tenant ?? []))],
      [...new Set(told.map((t) => t.event.type))],
    );
    const now = new Date();
    const deliveries = told.flatMap(({ e, event }) => {
      const run = runs.get(e.runId);
      if (!run) return [];
      const eventId = `evt_${e.runId}_${e.seq}`;
      const payload: WebhookEvent = {
        id: eventId,
        type: event.type,
        createdAt: e.at,
        data: { ...event.data, workflow: { name: run.workflow, version: run.version }, threadId: run.threadId, scheduleId: run.scheduleId },
      };
      const json = JSON.stringify(payload);
      return hooks
        .filter((hook) => webhookSubscribes(hook, run, event.type))
        .map((hook) => ({
          id: `whd_${ulid()}`,
          webhook_id: hook.id,
          run_id: e.runId,
          event_id: eventId,
          event_type: event.type,
          payload: json,
          status: 'pending' as const,
          next_attempt_at: now,
          created_at: now,
          delivered_at: null,
        }));
    });
    // In parts well under Postgres' 65,535 bind parameters: a batch may end many runs, each told to many subscriptions.
    for (let i = 0; i < deliveries.length; i += DELIVERIES_PER_INSERT) {
      await trx
        .insertInto('webhook_deliveries')
        .values(deliveries.slice(i, i + DELIVERIES_PER_INSERT))
        .onConflict((oc) => oc.columns(['webhook_id', 'event_id']).doNothing())
        .execute();
    }
  }

  private async storedRuns(trx: Transaction<GatewayTables>, runIds: readonly string[]): Promise<Map<string, RunInfo>> {
    if (runIds.length === 0) return new Map();
    const rows = await trx
      .selectFrom('webhook_runs')
      .selectAll()
      .where('run_id', 'in', [...new Set(runIds)])
      .execute();
    return new Map(
      rows.map((row) => [
        row.run_id,
        {
          tenant: row.tenant_id,
          workflow: row.workflow,
          version: row.workflow_version,
          threadId: row.thread_id,
          scheduleId: row.schedule_id,
          named: (row.webhook_ids as string[] | null) ?? [],
        },
      ]),
    );
  }

  /** The tenants' live subscriptions to any of these event types. */
  private async subscriptions(trx: Transaction<GatewayTables>, tenants: string[], types: string[]): Promise<WebhookSubscription[]> {
    if (tenants.length === 0) return [];
    const rows = await trx
      .selectFrom('webhooks')
      .select(['id', 'tenant_id', 'events', 'workflow', 'thread_id', 'schedule_id', 'named_only'])
      .where('tenant_id', 'in', tenants)
      .where('deleted_at', 'is', null)
      .where(sql<boolean>`events ?| ${types}::text[]`)
      .execute();
    return rows.map((r) => ({
      id: r.id,
      tenant: r.tenant_id,
      events: r.events as string[],
      workflow: r.workflow,
      threadId: r.thread_id,
      scheduleId: r.schedule_id,
      namedOnly: r.named_only,
    }));
  }
}
