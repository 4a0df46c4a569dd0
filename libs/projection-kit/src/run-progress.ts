import { terminalEventTypes } from '@spindle/contracts';
import type { ProjectionProgressTables } from '@spindle/db';
import { sql, type Kysely, type Transaction } from 'kysely';
import { escapeLiteral } from 'pg';
import type { LogCursorState } from '@spindle/bus';

type ProgressDb = Kysely<ProjectionProgressTables>;

/**
 * The progress table seen through a service's own database type. Sound because that type
 * includes the table; Kysely's types are invariant in the table map, hence the one cast.
 */
export function progressTables<DB extends ProjectionProgressTables>(db: Kysely<DB> | Transaction<DB>): ProgressDb {
  return db as unknown as ProgressDb;
}

/** How far each run is applied: its last seq and whether that event ended the run (`run_progress`). */
export async function loadProgress(db: ProgressDb, runIds: readonly string[]): Promise<Map<string, LogCursorState>> {
  if (runIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('run_progress')
    .select(['run_id', 'last_seq', 'last_type'])
    .where('run_id', 'in', [...runIds])
    .execute();
  return new Map(
    rows.map((r) => [r.run_id, { lastSeq: r.last_seq, ended: (terminalEventTypes as readonly string[]).includes(r.last_type) }]),
  );
}

/** The last seq applied of one run, 0 when none: what read-your-writes waits on. */
export async function appliedSeq(db: ProgressDb, runId: string): Promise<number> {
  const row = await db.selectFrom('run_progress').select('last_seq').where('run_id', '=', runId).executeTakeFirst();
  return row?.last_seq ?? 0;
}

/** Moves each run to its new end; never backwards (a replica that applied more wins). */
export async function recordProgress(db: ProgressDb, ends: ReadonlyMap<string, RunEnd>): Promise<void> {
  const upsert = progressUpsert(ends);
  if (upsert) await sql.raw(upsert).execute(db);
}

export async function clearProgress(db: ProgressDb): Promise<void> {
  await sql`truncate table run_progress`.execute(db);
}

/**
 * Serializes transactions over the same runs (replicas share a durable; a rebuild runs beside a
 * live consumer), taking the locks in one order so two batches cannot deadlock. `lockClass`
 * keeps one projection's locks apart from another's in a shared database. No parameters (the
 * ids, run ids of letters, digits, `_` and `-`, are escaped literals all the same): as a
 * transaction's first statement, its BEGIN travels with it.
 */
export async function lockRuns(db: ProgressDb, lockClass: number, runIds: readonly string[]): Promise<void> {
  const ids = runIds.map((id) => escapeLiteral(id)).join(', ');
  await sql
    .raw(
      `select pg_advisory_xact_lock(${integer(lockClass)}, k)
      from (select distinct hashtext(id) as k from unnest(array[${ids}]::text[]) as ids(id) order by k) as keys`,
    )
    .execute(db);
}

/**
 * `recordProgress` and COMMIT in one round trip: the transaction's last statement. A simple query
 * of two statements (Postgres stops at the first error, leaving the transaction to roll back).
 */
export async function recordProgressAndCommit(db: ProgressDb, ends: ReadonlyMap<string, RunEnd>): Promise<void> {
  const upsert = progressUpsert(ends);
  await sql.raw(upsert ? `${upsert};\ncommit` : 'commit').execute(db);
}

/**
 * The progress upsert, sorted by run so two replicas updating the same rows take their row locks
 * in one order; undefined when there is nothing to move. No parameters, so it can share a simple
 * query with COMMIT: every value (a run id, an event type, a time, all validated with the event)
 * is an escaped literal or a checked integer.
 */
function progressUpsert(ends: ReadonlyMap<string, RunEnd>): string | undefined {
  const rows = [...ends]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([runId, end]) => {
      const queuedAt = end.queuedAt ? `${escapeLiteral(end.queuedAt)}::timestamptz` : 'default';
      return `(${escapeLiteral(runId)}, ${integer(end.seq)}, ${escapeLiteral(end.type)}, ${queuedAt})`;
    });
  if (rows.length === 0) return undefined;
  return `insert into run_progress (run_id, last_seq, last_type, queued_at) values ${rows.join(', ')}
    on conflict (run_id) do update set last_seq = excluded.last_seq, last_type = excluded.last_type
    where run_progress.last_seq < excluded.last_seq`;
}

function integer(n: number): string {
  if (!Number.isSafeInteger(n)) throw new RangeError(`not an integer: ${n}`);
  return String(n);
}

/** Where a run's progress moves to, and when it was queued when the batch holds its first event. */
export interface RunEnd {
  seq: number;
  type: string;
  queuedAt?: string;
}

/** The last event of each run among `events` (in seq order per run): where its progress moves to. */
export function endsOf(events: ReadonlyArray<{ runId: string; seq: number; type: string; at?: string }>): Map<string, RunEnd> {
  const ends = new Map<string, RunEnd>();
  for (const e of events) {
    const end = ends.get(e.runId);
    const queuedAt = e.seq === 1 ? e.at : end?.queuedAt;
    if ((end?.seq ?? 0) < e.seq) ends.set(e.runId, { seq: e.seq, type: e.type, ...(queuedAt && { queuedAt }) });
  }
  return ends;
}

/** Forgets the runs' progress (they were erased or expired). */
export async function forgetProgress(db: ProgressDb, runIds: readonly string[]): Promise<void> {
  if (runIds.length > 0)
    await db
      .deleteFrom('run_progress')
      .where('run_id', 'in', [...runIds])
      .execute();
}

/** Up to `limit` runs queued before `before`: what retention expires next. */
export async function runsQueuedBefore(db: ProgressDb, before: Date, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('run_progress')
    .select('run_id')
    .where('queued_at', '<', before)
    .orderBy('queued_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.run_id);
}
