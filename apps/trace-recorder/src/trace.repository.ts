import {
  INTERNAL_WORKFLOW_PREFIX,
  MAX_LINEAGE_DEPTH,
  MAX_LINEAGE_RUNS,
  parseParameterFilter,
  parseScoreFilter,
  SpindleError,
  searchWords,
  type InternalRunsFilter,
  type RunSort,
  type RunStatus,
  type RunSummary,
  type RunTrace,
  type SortOrder,
  type Usage,
} from '@spindle/contracts';
import { decodeRunListCursor, encodeRunListCursor, type TraceTables } from '@spindle/db';
import { assembleTrace, toRunSummary, type StoredRunRow } from '@spindle/projections';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { scoresOfRun } from './score.repository';

export interface RunListFilter {
  tenant: string;
  workflow?: string;
  status?: RunStatus;
  q?: string;
  from?: string;
  to?: string;
  errorCode?: string;
  parameter?: string;
  /** A score filter (`libs/contracts` run-search): runs with such a score; `sort=score` sorts by it. */
  score?: string;
  /** `include`: also the internal (`_…`) workflows' runs; left out by default. */
  internal?: InternalRunsFilter;
  sort: RunSort;
  order: SortOrder;
  limit: number;
  cursor?: string;
}

/** Reads of the trace recorder's tables (the projection writes them). */
export class TraceRepository {
  /** `now` is what a run still going counts its wall and working time to. */
  constructor(
    private readonly db: Kysely<TraceTables>,
    private readonly now: () => number = Date.now,
  ) {}

  async getRun(runId: string): Promise<RunSummary | null> {
    const row = await this.db.selectFrom('runs').selectAll().where('run_id', '=', runId).executeTakeFirst();
    return row ? toRunSummary(row, this.now()) : null;
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
        // Scores are the run's tenant's only, as the scores list has them.
        return { ...assembleTrace(run, spans, this.now()), scores: await scoresOfRun(trx, run.tenant, runId) };
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
    const now = this.now();
    return { runs: page.map((row) => toRunSummary(row, now)), nextCursor };
  }

  /**
   * The fork tree around a run, of one tenant: up from the run to the oldest ancestor recorded,
   * then every descendant of that ancestor, shallowest first; at most `MAX_LINEAGE_RUNS` of them.
   */
  async lineage(tenant: string, runId: string): Promise<{ runs: RunSummary[]; truncated: boolean }> {
    const { rows } = await lineageQuery(tenant, runId).execute(this.db);
    const truncated = rows.length > MAX_LINEAGE_RUNS || rows.some((r) => r.depth >= MAX_LINEAGE_DEPTH);
    const now = this.now();
    return { runs: rows.slice(0, MAX_LINEAGE_RUNS).map((row) => toRunSummary(row, now)), truncated };
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

type SortKey = { key: RawBuilder<unknown>; text: RawBuilder<string>; cast: RawBuilder<unknown> };

/**
 * The sort's key as SQL, exactly as its index has it; and its value's text for the next cursor
 * (the database's own text of a timestamp keeps its microseconds).
 */
const sortKeys: Record<Exclude<RunSort, 'score'>, SortKey> = {
  started: { key: sql`queued_at`, text: sql<string>`to_json(queued_at) #>> '{}'`, cast: sql`timestamptz` },
  // By wall time; a run still going (no wall time stored yet) sorts as the shortest.
  duration: { key: sql`coalesce(wall_ms, -1)`, text: sql<string>`coalesce(wall_ms, -1)::text`, cast: sql`double precision` },
  tokens: { key: sql`total_tokens`, text: sql<string>`total_tokens::text`, cast: sql`bigint` },
  cost: { key: sql`cost_usd`, text: sql<string>`cost_usd::text`, cast: sql`double precision` },
};

/** The mean of the run's numeric values of one score; a run with none sorts lowest (`-Infinity` survives the cursor's text). */
function scoreSortKey(name: string): SortKey {
  const mean = sql`coalesce((select avg(s.value_number) from scores s
    where s.run_id = runs.run_id and s.name = ${name} and s.value_number is not null), '-Infinity'::double precision)`;
  return { key: mean, text: sql<string>`${mean}::text`, cast: sql`double precision` };
}

function sortKeyOf(sort: RunSort, score: string | undefined): SortKey {
  if (sort !== 'score') return sortKeys[sort];
  const filter = score === undefined ? undefined : parseScoreFilter(score);
  if (!filter) throw new SpindleError('validation_failed', '`sort=score` needs a `score` filter naming the score');
  return scoreSortKey(filter.name);
}

/**
 * One page plus one row (to know whether another page follows). Every filter is one an index
 * answers within the tenant: the sort's own index, the full-text index of the run's words, the
 * run id prefix index, the error code's and the parameters' indexes.
 */
export function listRunsQuery(db: Kysely<TraceTables>, filter: RunListFilter) {
  const { tenant, workflow, status, q, from, to, errorCode, parameter, sort, order, cursor } = filter;
  const { key, text, cast } = sortKeyOf(sort, filter.score);
  let query = db.selectFrom('runs').selectAll().select(text.as('sort_value')).where('tenant', '=', tenant);
  if (filter.internal !== 'include') query = query.where(notInternal());
  if (workflow !== undefined) query = query.where('workflow', '=', workflow);
  if (status !== undefined) query = query.where('status', '=', status);
  if (from !== undefined) query = query.where('queued_at', '>=', new Date(from));
  if (to !== undefined) query = query.where('queued_at', '<', new Date(to));
  if (errorCode !== undefined) query = query.where('error_code', '=', errorCode);
  if (parameter !== undefined) query = query.where(parameterMatch(parameter));
  if (q !== undefined) query = query.where(textMatch(q));
  if (filter.score !== undefined) query = query.where(scoreMatch(filter.score));
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

/** Not a run of an internal (`_…`) workflow: what lists, searches and the overview count by default. */
export function notInternal(column: RawBuilder<unknown> = sql`workflow`): RawBuilder<boolean> {
  return sql<boolean>`not starts_with(${column}, ${sql.lit(INTERNAL_WORKFLOW_PREFIX)})`;
}

/**
 * The lineage's runs: the ancestry walked up `forked_from` (the run itself at depth 0), and from
 * its root down every fork by the forks index, each at its depth below the root. One more row
 * than `MAX_LINEAGE_RUNS`, to know the tree was cut.
 */
export function lineageQuery(tenant: string, runId: string) {
  return sql<StoredRunRow & { depth: number }>`
    with recursive up(run_id, parent, height) as (
      select run_id, forked_from ->> 'runId', 0 from runs where run_id = ${runId} and tenant = ${tenant}
      union all
      select r.run_id, r.forked_from ->> 'runId', up.height + 1
      from runs r join up on r.run_id = up.parent
      where r.tenant = ${tenant} and up.height < ${MAX_LINEAGE_DEPTH}
    ),
    root as (select run_id from up order by height desc limit 1),
    down(run_id, depth) as (
      select run_id, 0 from root
      union all
      select r.run_id, down.depth + 1
      from runs r join down on r.forked_from ->> 'runId' = down.run_id
      where r.tenant = ${tenant} and down.depth < ${MAX_LINEAGE_DEPTH}
    )
    select runs.*, down.depth from down join runs on runs.run_id = down.run_id
    order by down.depth, runs.queued_at, runs.run_id
    limit ${MAX_LINEAGE_RUNS + 1}`;
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

/** Runs with a score of the filter's name (of the run's tenant) whose value compares as the filter says. */
function scoreMatch(text: string): RawBuilder<boolean> {
  const filter = parseScoreFilter(text);
  if (!filter) throw new SpindleError('validation_failed', `not a score filter: ${text}`);
  const same = sql`s.run_id = runs.run_id and s.tenant = runs.tenant and s.name = ${filter.name}`;
  if (filter.op === 'exists') return sql<boolean>`exists (select 1 from scores s where ${same})`;
  if ('number' in filter) {
    const op = sql.raw(filter.op);
    return sql<boolean>`exists (select 1 from scores s where ${same} and s.value_number ${op} ${filter.number})`;
  }
  const value = 'boolean' in filter ? filter.boolean : filter.category;
  return sql<boolean>`exists (select 1 from scores s where ${same} and s.value = ${JSON.stringify(value)}::jsonb)`;
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
