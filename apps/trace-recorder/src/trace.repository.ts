import {
  parseParameterFilter,
  searchWords,
  type RunSort,
  type RunStatus,
  type RunSummary,
  type RunTrace,
  type SortOrder,
  type Usage,
} from '@spindle/contracts';
import { decodeRunListCursor, encodeRunListCursor, type TraceTables } from '@spindle/db';
import { assembleTrace, toRunSummary } from '@spindle/projections';
import { sql, type Kysely, type RawBuilder } from 'kysely';

export interface RunListFilter {
  tenant: string;
  workflow?: string;
  status?: RunStatus;
  q?: string;
  from?: string;
  to?: string;
  errorCode?: string;
  parameter?: string;
  sort: RunSort;
  order: SortOrder;
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

  /** In the asked order (newest first by default); `nextCursor` is null on the last page. */
  async listRuns(filter: RunListFilter): Promise<{ runs: RunSummary[]; nextCursor: string | null }> {
    const rows = await listRunsQuery(this.db, filter).execute();
    const page = rows.slice(0, filter.limit);
    const last = page.at(-1);
    const nextCursor =
      rows.length > filter.limit && last
        ? encodeRunListCursor({ sort: filter.sort, order: filter.order, value: last.sort_value, runId: last.run_id })
        : null;
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

/**
 * The sort's key as SQL, exactly as its index has it; and its value's text for the next cursor
 * (the database's own text of a timestamp keeps its microseconds).
 */
const sortKeys: Record<RunSort, { key: RawBuilder<unknown>; text: RawBuilder<string>; cast: RawBuilder<unknown> }> = {
  started: { key: sql`queued_at`, text: sql<string>`to_json(queued_at) #>> '{}'`, cast: sql`timestamptz` },
  duration: { key: sql`coalesce(duration_ms, -1)`, text: sql<string>`coalesce(duration_ms, -1)::text`, cast: sql`double precision` },
  tokens: { key: sql`total_tokens`, text: sql<string>`total_tokens::text`, cast: sql`bigint` },
  cost: { key: sql`cost_usd`, text: sql<string>`cost_usd::text`, cast: sql`double precision` },
};

/**
 * One page plus one row (to know whether another page follows). Every filter is one an index
 * answers within the tenant: the sort's own index, the full-text index of the run's words, the
 * run id prefix index, the error code's and the parameters' indexes.
 */
export function listRunsQuery(db: Kysely<TraceTables>, filter: RunListFilter) {
  const { tenant, workflow, status, q, from, to, errorCode, parameter, sort, order, cursor } = filter;
  const { key, text, cast } = sortKeys[sort];
  let query = db.selectFrom('runs').selectAll().select(text.as('sort_value')).where('tenant', '=', tenant);
  if (workflow !== undefined) query = query.where('workflow', '=', workflow);
  if (status !== undefined) query = query.where('status', '=', status);
  if (from !== undefined) query = query.where('queued_at', '>=', new Date(from));
  if (to !== undefined) query = query.where('queued_at', '<', new Date(to));
  if (errorCode !== undefined) query = query.where('error_code', '=', errorCode);
  if (parameter !== undefined) query = query.where(parameterMatch(parameter));
  if (q !== undefined) query = query.where(textMatch(q));
  if (cursor !== undefined) {
    const after = decodeRunListCursor(cursor, { sort, order });
    const comparison = order === 'desc' ? sql`<` : sql`>`;
    query = query.where(sql<boolean>`(${key}, run_id) ${comparison} (${after.value}::${cast}, ${after.runId})`);
  }
  const direction = order === 'desc' ? sql`desc` : sql`asc`;
  return query
    .orderBy(sql`${key} ${direction}`)
    .orderBy(sql`run_id ${direction}`)
    .limit(filter.limit + 1);
}

/** Words as prefixes in the run's input or output, or the start of its run id (`like` with its wildcards escaped). */
function textMatch(q: string): RawBuilder<boolean> {
  const words = searchWords(q);
  const idPrefix = `${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  if (words.length === 0) return sql<boolean>`run_id like ${idPrefix}`;
  // Words are letters and digits only, so the query text cannot be malformed.
  const tsquery = words.map((w) => `${w}:*`).join(' & ');
  return sql<boolean>`(run_id like ${idPrefix} or search @@ to_tsquery('simple', ${tsquery}))`;
}

/** The parameter's value as text, and as the JSON number or boolean it may have been sent as. */
function parameterMatch(filter: string): RawBuilder<boolean> {
  const { key, value } = parseParameterFilter(filter);
  const candidates: unknown[] = [value];
  if (value === 'true' || value === 'false') candidates.push(value === 'true');
  else if (value.trim() !== '' && Number.isFinite(Number(value))) candidates.push(Number(value));
  const contained = candidates.map((v) => sql`parameters @> ${JSON.stringify({ [key]: v })}::jsonb`);
  return sql<boolean>`(${sql.join(contained, sql` or `)})`;
}
