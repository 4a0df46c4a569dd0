import { terminalStatuses, type RunEvent, type RunStatus, type RunSummary, type RunTrace } from '@spindle/contracts';
import type { TraceTables } from '@spindle/db';
import { assembleTrace, projectEvents, toRunSummary, type RowPatches } from '@spindle/projections';
import { sql, type Kysely } from 'kysely';
import { decodeRunCursor, encodeRunCursor } from './run-cursor';
import {
  closeOrphanSpans, deleteProjections, eventKey, insertNewEvents, loadGaplessLogs, loadLogEnds, loadRunIdentities, lockRuns, upsertPatches,
} from './trace-rows.writer';

export interface LoggedEvent {
  event: RunEvent;
  /** Position in the events stream, kept with the raw event. */
  streamSeq: number;
}

export interface AppliedBatch {
  /** Events stored for the first time (a redelivered one counts 0). */
  applied: number;
  /** Runs those events belong to. */
  runIds: string[];
}

export interface RunListFilter {
  workflow?: string;
  status?: RunStatus;
  limit: number;
  cursor?: string;
}

/** The trace recorder's tables: the only code that reads or writes them. */
export class TraceRepository {
  constructor(private readonly db: Kysely<TraceTables>) {}

  /**
   * Stores a batch of events and projects the ones not stored before, in one transaction.
   * A run's projection always covers exactly its log from seq 1 up to its first gap: when new
   * events extend it in order they are folded onto the stored rows; when they arrive out of
   * order (a batch that failed comes back after a later one, two replicas) the run is re-folded
   * from its stored log, so arrival order never changes the result.
   */
  async applyBatch(items: readonly LoggedEvent[]): Promise<AppliedBatch> {
    const unique = [...new Map(items.map((i) => [eventKey(i.event.runId, i.event.seq), i])).values()];
    if (unique.length === 0) return { applied: 0, runIds: [] };
    return this.db.transaction().execute(async (trx) => {
      await lockRuns(trx, distinct(unique.map((i) => i.event.runId)));
      const inserted = await insertNewEvents(trx, unique);
      const fresh = unique.filter((i) => inserted.has(eventKey(i.event.runId, i.event.seq))).map((i) => i.event);
      if (fresh.length === 0) return { applied: 0, runIds: [] };

      const runIds = distinct(fresh.map((e) => e.runId));
      const identities = await loadRunIdentities(trx, runIds);
      const logEnds = await loadLogEnds(trx, runIds);
      const inOrder: RunEvent[] = [];
      const refold: string[] = [];
      for (const [runId, events] of groupByRunInSeqOrder(fresh)) {
        const projectedTo = identities.get(runId)?.last_seq ?? 0;
        const extendsProjection = events.every((e, i) => e.seq === projectedTo + 1 + i) && logEnds.get(runId) === events[events.length - 1].seq;
        if (extendsProjection) inOrder.push(...events);
        else refold.push(runId);
      }
      const patches = projectEvents(inOrder);
      if (refold.length > 0) {
        const replayed = projectEvents(await loadGaplessLogs(trx, refold));
        await deleteProjections(trx, refold);
        for (const runId of refold) identities.delete(runId);
        mergeDisjoint(patches, replayed);
      }
      await upsertPatches(trx, patches, identities);
      const ended = [...patches.runs.values()].filter((p) => p.status && terminalStatuses.includes(p.status)).map((p) => p.runId);
      await closeOrphanSpans(trx, ended);
      return { applied: fresh.length, runIds };
    });
  }

  async getRun(runId: string): Promise<RunSummary | null> {
    const row = await this.db.selectFrom('runs').selectAll().where('run_id', '=', runId).executeTakeFirst();
    return row ? toRunSummary(row) : null;
  }

  async getTrace(runId: string): Promise<RunTrace | null> {
    // One snapshot, so the spans are exactly those of the run's `lastSeq`.
    return this.db.transaction().setIsolationLevel('repeatable read').execute(async (trx) => {
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

  /** How far the run's log is projected (0 when not at all): what read-your-writes waits on. */
  async lastAppliedSeq(runId: string): Promise<number> {
    const row = await this.db.selectFrom('runs').select('last_seq').where('run_id', '=', runId).executeTakeFirst();
    return row?.last_seq ?? 0;
  }

  /** Empties the three tables (projection rebuild). */
  async truncateAll(): Promise<void> {
    await sql`truncate table runs, spans, run_events`.execute(this.db);
  }
}

/** One page plus one row (to know whether another page follows), walking the paging index. */
export function listRunsQuery(db: Kysely<TraceTables>, filter: RunListFilter) {
  let query = db
    .selectFrom('runs')
    .selectAll()
    // The database's text of the timestamp keeps its microseconds for the next cursor.
    .select(sql<string>`to_json(queued_at) #>> '{}'`.as('queued_at_text'));
  const { workflow, status, cursor } = filter;
  if (workflow !== undefined) query = query.where('workflow', '=', workflow);
  if (status !== undefined) query = query.where('status', '=', status);
  if (cursor !== undefined) {
    const after = decodeRunCursor(cursor);
    query = query.where((eb) => eb(eb.refTuple('queued_at', 'run_id'), '<', eb.tuple(sql<Date>`${after.queuedAt}::timestamptz`, after.runId)));
  }
  return query.orderBy('queued_at', 'desc').orderBy('run_id', 'desc').limit(filter.limit + 1);
}

function groupByRunInSeqOrder(events: readonly RunEvent[]): Map<string, RunEvent[]> {
  const byRun = new Map<string, RunEvent[]>();
  for (const e of events) {
    const list = byRun.get(e.runId);
    if (list) list.push(e);
    else byRun.set(e.runId, [e]);
  }
  for (const list of byRun.values()) list.sort((a, b) => a.seq - b.seq);
  return byRun;
}

function mergeDisjoint(into: RowPatches, from: RowPatches): void {
  for (const [k, v] of from.runs) into.runs.set(k, v);
  for (const [k, v] of from.spans) into.spans.set(k, v);
}

function distinct(values: readonly string[]): string[] {
  return [...new Set(values)];
}
