import type { OverviewDay, RunsOverview } from '@spindle/contracts';
import type { TraceTables } from '@spindle/db';
import { sql, type Kysely } from 'kysely';
import { notInternal } from './trace.repository';

export interface RunsOverviewFilter {
  tenant: string;
  workflow?: string;
  from: string;
}

/** How a set of runs is summed up, the same way for a day and for the whole window. */
const FIGURES = sql`
  count(*) filter (where status = 'completed')::int as completed,
  count(*) filter (where status = 'failed')::int as failed,
  count(*) filter (where status = 'canceled')::int as canceled,
  count(*) filter (where status not in ('completed', 'failed', 'canceled'))::int as active,
  coalesce(sum(total_tokens), 0)::bigint as total_tokens,
  coalesce(sum(cost_usd), 0)::double precision as cost_usd,
  percentile_cont(0.5) within group (order by wall_ms) filter (where ended_at is not null) as p50,
  percentile_cont(0.95) within group (order by wall_ms) filter (where ended_at is not null) as p95`;

interface FigureRow {
  completed: number;
  failed: number;
  canceled: number;
  active: number;
  total_tokens: string;
  cost_usd: number;
  p50: number | null;
  p95: number | null;
}

/**
 * The overview dashboards' figures of one tenant's runs queued since `from` (optionally one
 * workflow's): per UTC day and in total, the top error codes, and the nodes with the slowest p95.
 * Each is one query walking the tenant's queued-at index (the nodes: its runs' spans by key).
 */
export async function runsOverview(db: Kysely<TraceTables>, filter: RunsOverviewFilter): Promise<RunsOverview> {
  const from = new Date(filter.from);
  const ofWorkflow = filter.workflow === undefined ? sql`` : sql` and workflow = ${filter.workflow}`;
  // Internal runs (a thread's state change) are records, not work: never counted.
  const scope = sql`tenant = ${filter.tenant} and queued_at >= ${from}${ofWorkflow} and ${notInternal()}`;
  const [daily, totals, errors, nodes, scores] = await Promise.all([
    sql<FigureRow & { day: string }>`
      select to_char(d.day, 'YYYY-MM-DD') as day, f.*
      from generate_series(
        date_trunc('day', ${from}::timestamptz at time zone 'UTC'), date_trunc('day', now() at time zone 'UTC'), interval '1 day'
      ) as d(day)
      left join lateral (
        select ${FIGURES} from runs
        where ${scope} and queued_at >= d.day at time zone 'UTC' and queued_at < (d.day + interval '1 day') at time zone 'UTC'
      ) f on true
      order by d.day`.execute(db),
    sql<FigureRow & { runs: number }>`select count(*)::int as runs, ${FIGURES} from runs where ${scope}`.execute(db),
    sql<{ code: string; runs: number }>`
      select error_code as code, count(*)::int as runs from runs where ${scope} and error_code is not null
      group by error_code order by runs desc, code limit 8`.execute(db),
    sql<{ workflow: string; node_id: string; executions: number; p50: number; p95: number }>`
      select r.workflow, s.node_id, count(*)::int as executions,
        percentile_cont(0.5) within group (order by s.duration_ms) as p50,
        percentile_cont(0.95) within group (order by s.duration_ms) as p95
      from runs r join spans s on s.run_id = r.run_id
      where r.tenant = ${filter.tenant} and r.queued_at >= ${from} and ${notInternal(sql`r.workflow`)}
        ${filter.workflow === undefined ? sql`` : sql`and r.workflow = ${filter.workflow}`}
        and s.kind = 'node' and s.duration_ms is not null and s.node_id is not null
      group by r.workflow, s.node_id order by p95 desc, executions desc limit 8`.execute(db),
    sql<{ name: string; day: string; workflow: string; workflow_version: number; count: number; mean: number | null }>`
      select sc.name, to_char(date_trunc('day', r.queued_at at time zone 'UTC'), 'YYYY-MM-DD') as day, r.workflow,
        r.workflow_version, count(*)::int as count, avg(sc.value_number)::double precision as mean
      from runs r join scores sc on sc.run_id = r.run_id and sc.tenant = r.tenant
      where r.tenant = ${filter.tenant} and r.queued_at >= ${from} and ${notInternal(sql`r.workflow`)}
        ${filter.workflow === undefined ? sql`` : sql`and r.workflow = ${filter.workflow}`}
      group by sc.name, 2, r.workflow, r.workflow_version
      order by 2 desc, sc.name, r.workflow, r.workflow_version limit 500`.execute(db),
  ]);
  const total = totals.rows[0]!;
  return {
    totals: { runs: total.runs, ...figures(total) },
    daily: daily.rows.map((row): OverviewDay => ({ day: row.day, ...figures(row) })),
    topErrors: errors.rows,
    slowestNodes: nodes.rows.map((n) => ({
      workflow: n.workflow,
      nodeId: n.node_id,
      executions: n.executions,
      p50Ms: n.p50,
      p95Ms: n.p95,
    })),
    scores: scores.rows.map((p) => ({
      name: p.name,
      day: p.day,
      workflow: p.workflow,
      workflowVersion: p.workflow_version,
      count: p.count,
      mean: p.mean === null ? null : Math.round(p.mean * 1e6) / 1e6,
    })),
  };
}

function figures(row: FigureRow): Omit<OverviewDay, 'day'> {
  return {
    completed: row.completed ?? 0,
    failed: row.failed ?? 0,
    canceled: row.canceled ?? 0,
    active: row.active ?? 0,
    totalTokens: Number(row.total_tokens ?? 0),
    costUsd: Math.round((row.cost_usd ?? 0) * 1e9) / 1e9,
    p50DurationMs: row.p50,
    p95DurationMs: row.p95,
  };
}
