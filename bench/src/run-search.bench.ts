import { createDatabase, serviceSchema } from '@spindle/db';
import type { Stack } from '@spindle/testing';
import { sql } from 'kysely';
import type { GatewayClient } from './gateway-client';
import { median, percentile } from './stats';

export interface RunSearchFigures {
  runs: number;
  /** `matched`: the runs a page showed, or the runs an overview counted. */
  searches: Array<{ name: string; query: string; matched: number; medianMs: number; p95Ms: number }>;
}

const WORDS = ['parcel', 'refund', 'invoice', 'delayed', 'lyon', 'berlin', 'warranty', 'upgrade', 'password', 'shipping'];

/**
 * The runs list with `runs` runs in the trace projection: rows written straight into the stack's
 * trace tables (the projection's own columns, its words and parameters), then each search asked
 * through the gateway as a client would (HTTP → NATS request/reply → Postgres), 30 times each.
 */
export async function measureRunSearch(client: GatewayClient, stack: Stack, runs = 100_000): Promise<RunSearchFigures> {
  const db = createDatabase({ url: stack.env.DATABASE_URL!, schema: serviceSchema('trace', stack.namespace), maxConnections: 2 });
  try {
    // Spread over 30 days; words, status, usage and parameters vary with the row number.
    await sql`insert into runs (run_id, workflow, workflow_version, status, queued_at, started_at, ended_at, duration_ms,
        input_tokens, output_tokens, total_tokens, cost_usd, error, last_seq, root_span_id, tenant, parameters, search)
      select 'bench-search-' || lpad(i::text, 7, '0'), 'support-' || (i % 20), 1,
        case when i % 10 = 0 then 'failed' else 'completed' end,
        now() - (i * interval '26 seconds'), now() - (i * interval '26 seconds'),
        now() - (i * interval '26 seconds') + interval '2 seconds',
        (i * 7919) % 30000, (i * 31) % 4000, (i * 17) % 900, (i * 31) % 4000 + (i * 17) % 900, ((i * 13) % 1000) / 10000.0,
        case when i % 10 = 0
          then jsonb_build_object('code', case when i % 30 = 0 then 'model_error' else 'tool_failed' end, 'message', 'x') end,
        9, 'root-' || i, 'default', jsonb_build_object('tier', case when i % 4 = 0 then 'gold' else 'basic' end, 'shard', i % 16),
        to_tsvector('simple', ${WORDS[0]!} || ' customer ' || i || ' '
          || (array[${sql.join(WORDS.map((w) => sql`${w}`))}]::text[])[1 + i % 10] || ' order ' || md5(i::text))
          || case when i % 997 = 0 then to_tsvector('simple', 'zeppelin') else ''::tsvector end
      from generate_series(1, ${runs}) as i`.execute(db);
    await sql`analyze runs`.execute(db);
    const week = new Date(Date.now() - 7 * 86_400_000).toISOString();
    const day = new Date(Date.now() - 86_400_000).toISOString();
    const asks: Array<[string, string, string?]> = [
      ['newest first, no filter', ''],
      ['one rare word (0.1 % of runs)', 'q=zeppelin'],
      ['two words, one in every run', 'q=parcel%20lyon'],
      ['a run id prefix', 'q=bench-search-00421'],
      ['failed, most expensive first', 'status=failed&sort=cost'],
      ['an error code, one workflow', 'errorCode=model_error&workflow=support-10'],
      ['a parameter value, longest first', 'parameter=tier%3Dgold&sort=duration'],
      ['a week, by tokens ascending', `from=${encodeURIComponent(week)}&sort=tokens&order=asc`],
      ['words within a day', `q=refund&from=${encodeURIComponent(day)}`],
      // The dashboards read the same rows: every day of 90, overall and for one workflow.
      ['overview, 90 days, all workflows', 'days=90', '/v1/overview'],
      ['overview, 90 days, one workflow', 'days=90&workflow=support-3', '/v1/overview'],
    ];
    const searches: RunSearchFigures['searches'] = [];
    for (const [name, query, path = '/v1/runs'] of asks) {
      const times: number[] = [];
      let matched = 0;
      for (let i = 0; i < 32; i++) {
        const t0 = performance.now();
        const res = await fetch(`${client.baseUrl}${path}?${path === '/v1/runs' ? 'limit=50&' : ''}${query}`, { headers: client.auth });
        const page = (await res.json()) as { runs?: unknown[]; totals?: { runs: number } };
        if (!res.ok) throw new Error(`GET ${path}?${query}: ${res.status} ${JSON.stringify(page)}`);
        // The first two warm the connection and the plan cache.
        if (i >= 2) times.push(performance.now() - t0);
        matched = page.runs?.length ?? page.totals?.runs ?? 0;
      }
      searches.push({ name, query, matched, medianMs: median(times), p95Ms: percentile(times, 95) });
    }
    return { runs, searches };
  } finally {
    await sql`delete from runs where run_id like 'bench-search-%'`.execute(db);
    await db.destroy();
  }
}
