import { actorSchema, type Actor, type AuditRecord } from '@spindle/contracts';
import type { GatewayTables } from '@spindle/db';
import type { Kysely, Selectable } from 'kysely';

/** What the audit log records; one name per kind of change. */
export type AuditAction =
  | 'workflow.saved'
  | 'workflow.rolled_back'
  | 'workflow.deleted'
  | 'agent.saved'
  | 'agent.rolled_back'
  | 'agent.deleted'
  | 'key.created'
  | 'key.revoked'
  | 'tenant.created'
  | 'tenant.quotas_changed'
  | 'run.started'
  | 'run.canceled'
  | 'run.forked'
  | 'run.erased'
  | 'score.recorded'
  | 'dataset.saved'
  | 'dataset.deleted'
  | 'dataset.items_added'
  | 'dataset.item_removed'
  | 'experiment.started'
  | 'experiment.canceled'
  | 'replay.started'
  | 'score_config.saved'
  | 'score_config.deleted'
  | 'score_settings.changed'
  | 'thread.created'
  | 'thread.state_changed'
  | 'webhook.created'
  | 'webhook.deleted'
  | 'schedule.created'
  | 'schedule.paused'
  | 'schedule.resumed'
  | 'schedule.triggered'
  | 'schedule.deleted'
  | 'file.uploaded'
  | 'file.deleted'
  | 'knowledge_base.saved'
  | 'knowledge_base.deleted'
  | 'knowledge_document.added'
  | 'knowledge_document.deleted'
  | 'request.answered';

export interface AuditEntry {
  tenant: string;
  actor: Actor;
  action: AuditAction;
  target: {
    kind:
      | 'workflow'
      | 'agent'
      | 'key'
      | 'tenant'
      | 'run'
      | 'request'
      | 'thread'
      | 'dataset'
      | 'experiment'
      | 'replay'
      | 'score_config'
      | 'webhook'
      | 'schedule'
      | 'file'
      | 'knowledge_base'
      | 'knowledge_document';
    id: string;
  };
  source: string | null;
  detail?: Record<string, unknown>;
}

export interface AuditFilter {
  tenant: string;
  action?: string;
  actorId?: string;
  targetKind?: string;
  targetId?: string;
  since?: string;
  until?: string;
  /** Entries older than this id (the previous page's last). */
  beforeId?: string;
  limit: number;
}

/** The gateway's append-only audit trail. */
export class AuditLogRepository {
  constructor(private readonly db: Kysely<GatewayTables>) {}

  append(entry: AuditEntry): Promise<void> {
    return this.appendAll([entry]);
  }

  /** The entries in one statement (the audit trail hands over those that arrive together). */
  async appendAll(entries: readonly AuditEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const at = new Date();
    await this.db
      .insertInto('audit_log')
      .values(
        entries.map((entry) => ({
          tenant_id: entry.tenant,
          at,
          actor: JSON.stringify(entry.actor),
          actor_id: entry.actor.id,
          action: entry.action,
          target_kind: entry.target.kind,
          target_id: entry.target.id,
          source: entry.source,
          detail: entry.detail ? JSON.stringify(entry.detail) : null,
        })),
      )
      .execute();
  }

  /** Newest first, one more row than the page to tell whether another follows. */
  async list(filter: AuditFilter): Promise<{ entries: AuditRecord[]; more: boolean }> {
    let query = this.db.selectFrom('audit_log').selectAll().where('tenant_id', '=', filter.tenant);
    if (filter.action !== undefined) query = query.where('action', '=', filter.action);
    if (filter.actorId !== undefined) query = query.where('actor_id', '=', filter.actorId);
    if (filter.targetKind !== undefined) query = query.where('target_kind', '=', filter.targetKind);
    if (filter.targetId !== undefined) query = query.where('target_id', '=', filter.targetId);
    if (filter.since !== undefined) query = query.where('at', '>=', new Date(filter.since));
    if (filter.until !== undefined) query = query.where('at', '<', new Date(filter.until));
    if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
    const rows = await query
      .orderBy('id', 'desc')
      .limit(filter.limit + 1)
      .execute();
    return { entries: rows.slice(0, filter.limit).map(toRecord), more: rows.length > filter.limit };
  }
}

function toRecord(row: Selectable<GatewayTables['audit_log']>): AuditRecord {
  return {
    id: String(row.id),
    at: row.at.toISOString(),
    tenant: row.tenant_id,
    actor: actorSchema.parse(row.actor),
    action: row.action,
    target: { kind: row.target_kind, id: row.target_id },
    source: row.source,
    detail: (row.detail as Record<string, unknown> | null) ?? null,
  };
}
