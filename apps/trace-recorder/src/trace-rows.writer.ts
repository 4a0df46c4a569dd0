import { terminalStatuses, type RunEvent } from '@spindle/contracts';
import { jsonRecordSet, recordSetNames, type RecordSetColumns, type TraceTables } from '@spindle/db';
import type { RowPatches } from '@spindle/projections';
import { sql, type InsertObject, type Kysely } from 'kysely';
import { jsonText, runRowOf, spanRowOf, type StoredRunIdentity } from './patch-rows.mapper';

type TraceDb = Kysely<TraceTables>;

/** Rows per statement: well under Postgres' 65,535 bind parameters for the widest table. */
const CHUNK = 1_000;

/**
 * Appends the batch's events to the raw log (kept for export; the kit never hands an event twice,
 * and a repeat would change nothing) and reads what is stored of their runs: the read rides on
 * the insert's last part, one round trip for both.
 */
export async function insertEventsReadingRuns(
  trx: TraceDb,
  events: readonly RunEvent[],
  runIds: readonly string[],
): Promise<Map<string, StoredRunIdentity>> {
  const parts = chunks(events);
  const last = runIds.length > 0 ? parts.pop() : undefined;
  for (const part of parts) await insertEventRows(trx, part).execute();
  if (runIds.length === 0) return new Map();
  const reader = last ? trx.with('appended', (db) => insertEventRows(db, last).returning('seq')) : trx;
  const rows = await reader
    .selectFrom('runs')
    .select(['run_id', 'workflow', 'workflow_version', 'status', 'queued_at', 'root_span_id', 'last_seq', 'tenant'])
    .select(['ended_at', 'waited_ms', 'waiting_since'])
    .where('run_id', 'in', [...runIds])
    .execute();
  return new Map(rows.map((r) => [r.run_id, r]));
}

type EventRow = { run_id: string; seq: number; type: string; at: string; event: string };
const EVENT_COLUMNS: RecordSetColumns<EventRow> = { run_id: 'text', seq: 'integer', type: 'text', at: 'timestamptz', event: 'jsonb' };

function insertEventRows(db: Pick<TraceDb, 'insertInto'>, events: readonly RunEvent[]) {
  const rows = events.map((event): EventRow => ({
    run_id: event.runId,
    seq: event.seq,
    type: event.type,
    at: event.at,
    event: jsonText(event),
  }));
  return db
    .insertInto('run_events')
    .columns(recordSetNames(EVENT_COLUMNS))
    .expression(jsonRecordSet(rows, EVENT_COLUMNS))
    .onConflict((oc) => oc.columns(['run_id', 'seq']).doNothing());
}

type SpanRow = ReturnType<typeof spanRowOf>;
const SPAN_COLUMNS: RecordSetColumns<SpanRow> = {
  run_id: 'text',
  span_id: 'text',
  parent_span_id: 'text',
  node_id: 'text',
  path: 'text',
  kind: 'text',
  node_type: 'text',
  status: 'text',
  started_at: 'timestamptz',
  ended_at: 'timestamptz',
  duration_ms: 'double precision',
  start_seq: 'integer',
  end_seq: 'integer',
  input: 'jsonb',
  output: 'jsonb',
  error: 'jsonb',
  usage: 'jsonb',
  model: 'text',
  iteration: 'integer',
  branch_id: 'text',
};

/**
 * Merges patches into stored rows: an absent field keeps the stored value, tokens add up, a
 * terminal run or a closed span stays as it is, and the first start of a run is kept. The runs'
 * and the spans' upserts go as one statement (no row of one table is read by the other's).
 */
export async function upsertPatches(trx: TraceDb, patches: RowPatches, identities: ReadonlyMap<string, StoredRunIdentity>): Promise<void> {
  const runRows = [...patches.runs.values()].flatMap((p) => {
    const row = runRowOf(p, identities.get(p.runId));
    // The batch's words become a tsvector in the database, with the one text search config the list asks with.
    const search = p.searchText ? sql<string>`to_tsvector('simple', ${p.searchText})` : sql<string>`''::tsvector`;
    return row ? [{ ...row, search }] : [];
  });
  const runParts = chunks(runRows);
  const spanParts = chunks([...patches.spans.values()].map(spanRowOf));
  for (let i = 0; i < Math.max(runParts.length, spanParts.length); i++) {
    const [runs, spans] = [runParts[i], spanParts[i]];
    if (runs && spans)
      await upsertSpans(
        trx.with('runs_upserted', (db) => upsertRuns(db, runs).returning('run_id')),
        spans,
      ).execute();
    else if (runs) await upsertRuns(trx, runs).execute();
    else if (spans) await upsertSpans(trx, spans).execute();
  }
}

function upsertRuns(db: Pick<TraceDb, 'insertInto'>, rows: ReadonlyArray<InsertObject<TraceTables, 'runs'>>) {
  return db
    .insertInto('runs')
    .values([...rows])
    .onConflict((oc) =>
      oc.column('run_id').doUpdateSet((eb) => ({
        status: sql<string>`case when runs.status in (${sql.join(terminalStatuses)}) then runs.status else excluded.status end`,
        started_at: eb.fn.coalesce('runs.started_at', 'excluded.started_at'),
        ended_at: eb.fn.coalesce('excluded.ended_at', 'runs.ended_at'),
        // The proposed clock was folded onto the stored one, so it replaces it; an ended run keeps its times.
        wall_ms: eb.fn.coalesce('runs.wall_ms', 'excluded.wall_ms'),
        working_ms: eb.fn.coalesce('runs.working_ms', 'excluded.working_ms'),
        waited_ms: sql<number>`case when runs.wall_ms is null then excluded.waited_ms else runs.waited_ms end`,
        waiting_since: sql<Date>`case when runs.wall_ms is null then excluded.waiting_since else runs.waiting_since end`,
        error: eb.fn.coalesce('excluded.error', 'runs.error'),
        forked_from: eb.fn.coalesce('runs.forked_from', 'excluded.forked_from'),
        started_by: eb.fn.coalesce('runs.started_by', 'excluded.started_by'),
        canceled_by: eb.fn.coalesce('runs.canceled_by', 'excluded.canceled_by'),
        parameters: eb.fn.coalesce('runs.parameters', 'excluded.parameters'),
        search: sql<string>`runs.search || excluded.search`,
        input_tokens: sql<number>`runs.input_tokens + excluded.input_tokens`,
        output_tokens: sql<number>`runs.output_tokens + excluded.output_tokens`,
        total_tokens: sql<number>`runs.total_tokens + excluded.total_tokens`,
        cost_usd: sql<number>`round((runs.cost_usd + excluded.cost_usd)::numeric, 9)::double precision`,
        cached_input_tokens: sql<number>`runs.cached_input_tokens + excluded.cached_input_tokens`,
        cache_write_tokens: sql<number>`runs.cache_write_tokens + excluded.cache_write_tokens`,
        reasoning_tokens: sql<number>`runs.reasoning_tokens + excluded.reasoning_tokens`,
        unpriced_calls: sql<number>`runs.unpriced_calls + excluded.unpriced_calls`,
        last_seq: sql<number>`greatest(runs.last_seq, excluded.last_seq)`,
      })),
    );
}

function upsertSpans(db: Pick<TraceDb, 'insertInto'>, rows: readonly SpanRow[]) {
  return db
    .insertInto('spans')
    .columns(recordSetNames(SPAN_COLUMNS))
    .expression(jsonRecordSet(rows, SPAN_COLUMNS))
    .onConflict((oc) =>
      oc.columns(['run_id', 'span_id']).doUpdateSet((eb) => ({
        status: sql<string>`case when spans.status <> 'running' then spans.status else excluded.status end`,
        parent_span_id: eb.fn.coalesce('excluded.parent_span_id', 'spans.parent_span_id'),
        node_id: eb.fn.coalesce('excluded.node_id', 'spans.node_id'),
        node_type: eb.fn.coalesce('excluded.node_type', 'spans.node_type'),
        started_at: eb.fn.coalesce('excluded.started_at', 'spans.started_at'),
        ended_at: eb.fn.coalesce('excluded.ended_at', 'spans.ended_at'),
        duration_ms: eb.fn.coalesce('excluded.duration_ms', 'spans.duration_ms'),
        start_seq: eb.fn.coalesce('excluded.start_seq', 'spans.start_seq'),
        end_seq: eb.fn.coalesce('excluded.end_seq', 'spans.end_seq'),
        input: eb.fn.coalesce('excluded.input', 'spans.input'),
        output: eb.fn.coalesce('excluded.output', 'spans.output'),
        error: eb.fn.coalesce('excluded.error', 'spans.error'),
        usage: eb.fn.coalesce('excluded.usage', 'spans.usage'),
        model: eb.fn.coalesce('excluded.model', 'spans.model'),
        iteration: eb.fn.coalesce('excluded.iteration', 'spans.iteration'),
        branch_id: eb.fn.coalesce('excluded.branch_id', 'spans.branch_id'),
      })),
    );
}

/**
 * Once a run is over, a span still open can never close (its worker was lost and the step ran
 * again under a new span): mark it canceled at the run's end instead of running forever.
 */
export async function closeOrphanSpans(trx: TraceDb, runIds: readonly string[]): Promise<void> {
  if (runIds.length === 0) return;
  await trx
    .updateTable('spans')
    .from('runs')
    .set((eb) => ({ status: 'canceled', ended_at: eb.ref('runs.ended_at') }))
    .whereRef('spans.run_id', '=', 'runs.run_id')
    .where('spans.run_id', 'in', [...runIds])
    .where('spans.status', '=', 'running')
    .where('spans.kind', '<>', 'run')
    .where('runs.status', 'in', [...terminalStatuses])
    .execute();
}

function chunks<T>(items: readonly T[]): T[][] {
  const parts: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) parts.push(items.slice(i, i + CHUNK));
  return parts;
}
