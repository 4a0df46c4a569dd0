import { DEFAULT_TENANT, type RunEvent, type WebhookEvent } from '@spindle/contracts';
import { webhookEventAfter, type WebhookEventBody } from '@spindle/projections';
import type { GatewayTables } from '@spindle/db';
import type { Fold } from '@spindle/projection-kit';
import { sql, type Transaction } from 'kysely';
import { ulid } from 'ulid';

type RunInfo = {
  tenant: string;
  workflow: string;
  version: number;
  threadId: string | null;
  scheduleId: string | null;
  /** The subscriptions the run named. */
  named: string[];
};

/**
 * The run events subscriptions are told of, turned into deliveries (one per subscription and
 * event, made once however often the log is folded). A run's tenant, workflow and thread come
 * from its `run.queued`, kept until its end.
 */
export class WebhookProjection implements Fold<GatewayTables> {
  async apply(trx: Transaction<GatewayTables>, events: readonly RunEvent[]): Promise<void> {
    const runs = new Map<string, RunInfo>();
    const ended = new Set<string>();
    for (const e of events) {
      if (e.type === 'run.queued') {
        const info = {
          tenant: e.data.tenant ?? DEFAULT_TENANT,
          workflow: e.data.workflow.name,
          version: e.data.workflow.version,
          threadId: e.data.thread?.id ?? null,
          scheduleId: e.data.scheduledBy?.scheduleId ?? null,
          named: e.data.webhooks ?? [],
        };
        runs.set(e.runId, info);
        continue;
      }
      const event = (webhookEventAfter[e.type] as ((e: RunEvent) => WebhookEventBody) | null)?.(e);
      if (!event) continue;
      const run = runs.get(e.runId) ?? (await this.runInfo(trx, e.runId));
      if (run) await this.deliver(trx, e, run, event);
      if (e.type !== 'run.awaiting') ended.add(e.runId);
    }
    // One insert for the batch's new runs, but those that also ended in it; then the ended ones go.
    const open = [...runs].filter(([runId]) => !ended.has(runId));
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

  private async runInfo(trx: Transaction<GatewayTables>, runId: string): Promise<RunInfo | undefined> {
    const row = await trx.selectFrom('webhook_runs').selectAll().where('run_id', '=', runId).executeTakeFirst();
    return (
      row && {
        tenant: row.tenant_id,
        workflow: row.workflow,
        version: row.workflow_version,
        threadId: row.thread_id,
        scheduleId: row.schedule_id,
        named: (row.webhook_ids as string[] | null) ?? [],
      }
    );
  }

  private async deliver(trx: Transaction<GatewayTables>, e: RunEvent, run: RunInfo, event: WebhookEventBody) {
    const subscribers = await trx
      .selectFrom('webhooks')
      .select('id')
      .where('tenant_id', '=', run.tenant)
      .where('deleted_at', 'is', null)
      .where(sql<boolean>`events ? ${event.type}`)
      .where((eb) =>
        eb.or([
          eb.and([
            eb('named_only', '=', false),
            eb.or([eb('workflow', 'is', null), eb('workflow', '=', run.workflow)]),
            eb.or([eb('thread_id', 'is', null), eb('thread_id', '=', run.threadId)]),
            eb.or([eb('schedule_id', 'is', null), eb('schedule_id', '=', run.scheduleId)]),
          ]),
          ...(run.named.length ? [eb('id', 'in', run.named)] : []),
        ]),
      )
      .execute();
    if (subscribers.length === 0) return;
    const eventId = `evt_${e.runId}_${e.seq}`;
    const payload: WebhookEvent = {
      id: eventId,
      type: event.type,
      createdAt: e.at,
      data: { ...event.data, workflow: { name: run.workflow, version: run.version }, threadId: run.threadId, scheduleId: run.scheduleId },
    };
    const now = new Date();
    await trx
      .insertInto('webhook_deliveries')
      .values(
        subscribers.map((s) => ({
          id: `whd_${ulid()}`,
          webhook_id: s.id,
          run_id: e.runId,
          event_id: eventId,
          event_type: event.type,
          payload: JSON.stringify(payload),
          status: 'pending' as const,
          next_attempt_at: now,
          created_at: now,
          delivered_at: null,
        })),
      )
      .onConflict((oc) => oc.columns(['webhook_id', 'event_id']).doNothing())
      .execute();
  }
}
