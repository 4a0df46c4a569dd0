import type { RunStatus, RunSummary, RunTrace, Usage } from '@spindle/contracts';
import type { TraceTables } from '@spindle/db';
import { assembleTrace, toRunSummary } from '@spindle/projections';
import { sql, type Kysely } from 'kysely';
import { decodeRunCursor, encodeRunCursor } from './run-cursor';

export interface RunListFilter {
  tenant: string;
  workflow?: string;
  status?: RunStatus;
  limit: number;
  cursor?: string;
}

/** Reads of the trace recorder's tables (the projection writes them). */
export class TraceRepository {
  constructor(private readonly db: Kysely<TraceTables>) {}

  async getRun(runId: string): Promise<RunSummary | null> {
    const row = await this.db.selectFrom('runs').selectAll().where('run_id', '=', runId).executeTakeFirst();
    return row ? toRunSummary(row) : null;
  }

  /** The workflow each of these runs ran (runs the projection does not hold are left out). */
  async workflowsOf(runIds: readonly string[]): Promise<Map<string, string>> {
    const rows = await this.db
      .selectFrom('runs')
      .select(['run_id', 'workflow'])
      .where('run_id', 'in', [...runIds])
      .execute();
    return new Map(rows.map((r) => [r.run_id, r.workflow]));
  }

  async getTrace(runId: string): Promise<RunTrace | null> {
    // One snapshot, so the spans are exactly those of the run's `lastSeq`.
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const run = await trx.selectFrom('runs').selectAll().where('run_id', '=', runId).executeTakeFirst();
        if (!run) return null;
        const spans = await trx.selectFrom('spans').selectAll().where('run_id', '=', runId).execute();
        return assembleTrace(run, spans);
      });
  }

  /** Newest first; `nextCursor` is null on the last page. */
  async listRuns(filter: RunListFilter): Promise<{ runs: RunSummary[]; nextCursor: string | null }> {
    const rows = await listRunsQuery(this.db, filter).execute();
    const page = rows.slice(0, filter.limit);
    const last = page.at(-1);
    const nextCursor = rows.length > filter.limit && last ? encodeRunCursor({ queuedAt: last.queued_at_text, runId: last.run_id }) : null;
    return { runs: page.map(toRunSummary), nextCursor };
  }

  /** What the tenant's runs queued since `since` used (the daily budget check; a run counts on the day it was queued). */
  async tenantUsage(tenant: string, since: string): Promise<{ usage: Usage; runs: number }> {
    const row = await this.db
      .selectFrom('runs')
      .where('tenant', '=', tenant)
      .where('queued_at', '>=', new Date(since))
      .select((eb) => [
        eb.fn.coalesce(eb.fn.sum<string>('input_tokens'), sql<string>`0`).as('input'),
        eb.fn.coalesce(eb.fn.sum<string>('output_tokens'), sql<string>`0`).as('output'),
        eb.fn.coalesce(eb.fn.sum<string>('total_tokens'), sql<string>`0`).as('total'),
        eb.fn.coalesce(eb.fn.sum<number>('cost_usd'), sql<number>`0`).as('cost'),
        eb.fn.countAll<string>().as('runs'),
      ])
      .executeTakeFirstOrThrow();
    return {
      usage: {
        inputTokens: Number(row.input),
        outputTokens: Number(row.output),
        totalTokens: Number(row.total),
        costUsd: Number(row.cost),
      },
      runs: Number(row.runs),
    };
  }
}

/** One page plus one row (to know whether another page follows), walking the paging index. */
export function listRunsQuery(db: Kysely<TraceTables>, filter: RunListFilter) {
  let query = db
    .selectFrom('runs')
    .selectAll()
    // The database's text of the timestamp keeps its microseconds for the next cursor.
    .select(sql<string>`to_json(queued_at) #>> '{}'`.as('queued_at_text'));
  const { tenant, workflow, status, cursor } = filter;
  query = query.where('tenant', '=', tenant);
  if (workflow !== undefined) query = query.where('workflow', '=', workflow);
  if (status !== undefined) query = query.where('status', '=', status);
  if (cursor !== undefined) {
    const after = decodeRunCursor(cursor);
    query = query.where((eb) =>
      eb(eb.refTuple('queued_at', 'run_id'), '<', eb.tuple(sql<Date>`${after.queuedAt}::timestamptz`, after.runId)),
    );
  }
  return query
    .orderBy('queued_at', 'desc')
    .orderBy('run_id', 'desc')
    .limit(filter.limit + 1);
}
