import { PENDING_AGE_BUCKETS, type ApprovalQueryResults, type PendingAges, type RequestStatus } from '@spindle/contracts';
import type { ApprovalTables } from '@spindle/db';
import { sql, type Kysely } from 'kysely';
import { toHumanRequest } from './human-request.mapper';
import { decodeRequestCursor, encodeRequestCursor } from './request-cursor';

export interface RequestFilter {
  tenant: string;
  status?: RequestStatus;
  runId?: string;
  limit: number;
  cursor?: string;
}

/** Reads of the approval tables: the inbox, read-your-writes progress, and what has expired. */
export class RequestsReader {
  constructor(
    private readonly db: Kysely<ApprovalTables>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Every tenant's pending requests by kind: how many, and since when the oldest waits. */
  async pendingByKind(): Promise<Array<{ kind: string; count: number; oldest: Date }>> {
    const rows = await this.db
      .selectFrom('requests')
      .select(['kind', sql<string>`count(*)`.as('n'), sql<Date>`min(requested_at)`.as('oldest')])
      .where('status', '=', 'pending')
      .groupBy('kind')
      .execute();
    return rows.map((r) => ({ kind: r.kind, count: Number(r.n), oldest: r.oldest }));
  }

  /** One tenant's pending requests (optionally one workflow's) by how long they have waited, with the oldest's time. */
  async pendingAges(tenant: string, workflow?: string): Promise<PendingAges> {
    const now = new Date(this.now());
    const ago = (hours: number) => new Date(now.getTime() - hours * 3_600_000);
    let query = this.db
      .selectFrom('requests')
      .select([
        sql<number>`count(*) filter (where requested_at > ${ago(1)})::int`.as('hour'),
        sql<number>`count(*) filter (where requested_at <= ${ago(1)} and requested_at > ${ago(24)})::int`.as('day'),
        sql<number>`count(*) filter (where requested_at <= ${ago(24)} and requested_at > ${ago(24 * 7)})::int`.as('week'),
        sql<number>`count(*) filter (where requested_at <= ${ago(24 * 7)})::int`.as('older'),
        sql<Date | null>`min(requested_at)`.as('oldest'),
      ])
      .where('tenant', '=', tenant)
      .where('status', '=', 'pending');
    if (workflow !== undefined) query = query.where('workflow', '=', workflow);
    const row = await query.executeTakeFirstOrThrow();
    const counts = [row.hour, row.day, row.week, row.older];
    return {
      buckets: PENDING_AGE_BUCKETS.map((age, i) => ({ age, requests: counts[i] ?? 0 })),
      oldestRequestedAt: row.oldest ? new Date(row.oldest).toISOString() : null,
    };
  }

  /** Oldest first (the inbox order); `nextCursor` is null on the last page. */
  async listRequests(filter: RequestFilter): Promise<ApprovalQueryResults['listRequests']> {
    let query = this.db
      .selectFrom('requests')
      .selectAll()
      // The database's text of the timestamp keeps its microseconds for the next cursor.
      .select(sql<string>`to_json(requested_at) #>> '{}'`.as('requested_at_text'));
    query = query.where('tenant', '=', filter.tenant);
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (filter.runId !== undefined) query = query.where('run_id', '=', filter.runId);
    if (filter.cursor !== undefined) {
      const after = decodeRequestCursor(filter.cursor);
      query = query.where((eb) =>
        eb(eb.refTuple('requested_at', 'request_id'), '>', eb.tuple(sql<Date>`${after.requestedAt}::timestamptz`, after.requestId)),
      );
    }
    // One row more than the page tells whether another page follows.
    const rows = await query
      .orderBy('requested_at')
      .orderBy('request_id')
      .limit(filter.limit + 1)
      .execute();
    const page = rows.slice(0, filter.limit);
    const last = page.at(-1);
    const nowMs = this.now();
    return {
      requests: page.map(({ requested_at_text: _text, ...row }) => toHumanRequest(row, nowMs)),
      nextCursor:
        rows.length > filter.limit && last
          ? encodeRequestCursor({ requestedAt: last.requested_at_text, requestId: last.request_id })
          : null,
    };
  }

  /** Pending requests past their deadline, the longest overdue first. */
  async expiredRequests(limit: number): Promise<Array<{ requestId: string; runId: string }>> {
    const rows = await this.db
      .selectFrom('requests')
      .select(['request_id', 'run_id'])
      .where('status', '=', 'pending')
      .where('expires_at', '<=', sql<Date>`now()`)
      .orderBy('expires_at')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ requestId: r.request_id, runId: r.run_id }));
  }
}
