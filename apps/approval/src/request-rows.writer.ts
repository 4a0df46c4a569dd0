import { DEFAULT_TENANT } from '@spindle/contracts';
import type { ApprovalTables } from '@spindle/db';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { RequestChanges } from './request-changes';

type ApprovalDb = Kysely<ApprovalTables> | Transaction<ApprovalTables>;

/**
 * Writes the changes in an order equivalent to the log's: inserts first (a request is asked
 * before it is answered, a run queued before it asks), then answers, then ended runs. Every
 * statement is idempotent on its own: inserts ignore existing rows and only a pending request
 * takes an answer or a cancel.
 */
export async function writeRequestChanges(trx: ApprovalDb, changes: RequestChanges): Promise<void> {
  if (changes.queuedRuns.length > 0) {
    await trx
      .insertInto('runs')
      .values(changes.queuedRuns.map((r) => ({ run_id: r.runId, tenant: r.tenant, workflow: text(r.workflow), status: 'active' })))
      .onConflict((oc) => oc.column('run_id').doNothing())
      .execute();
  }
  if (changes.asked.length > 0) {
    const runs = await runsOf(
      trx,
      changes.asked.map((r) => r.runId),
    );
    await trx
      .insertInto('requests')
      .values(
        changes.asked.map((r) => ({
          request_id: r.requestId,
          run_id: r.runId,
          // The kit applies a run's events from seq 1, so its run.queued (and row) came first.
          tenant: runs.get(r.runId)?.tenant ?? DEFAULT_TENANT,
          workflow: runs.get(r.runId)?.workflow ?? '',
          node_id: text(r.nodeId),
          kind: r.kind,
          prompt: text(r.prompt),
          form: r.form && json(r.form),
          call: r.call && json(r.call),
          mode: r.mode,
          status: 'pending',
          requested_at: r.requestedAt,
          expires_at: r.expiresAt,
          answered_at: null,
          answered_by: null,
          answer: null,
          seq: r.seq,
        })),
      )
      // A resumed run does not ask again, but the first asking counts if it ever did.
      .onConflict((oc) => oc.column('request_id').doNothing())
      .execute();
  }
  for (const a of changes.answers) {
    await trx
      .updateTable('requests')
      .set({ status: a.status, answered_at: a.answeredAt, answered_by: json(a.answeredBy), answer: a.answer && json(a.answer) })
      .where('request_id', '=', a.requestId)
      .where('run_id', '=', a.runId)
      .where('status', '=', 'pending')
      .execute();
  }
  await closeEndedRuns(trx, changes.endedRuns);
}

/** One statement for the batch's ended runs and their pending requests, however many runs ended in it. */
async function closeEndedRuns(trx: ApprovalDb, endedRuns: RequestChanges['endedRuns']): Promise<void> {
  if (endedRuns.length === 0) return;
  const ended = sql.join(endedRuns.map(({ runId, status }) => sql`(${runId}, ${status})`));
  // Two tables, neither read by the other's update: one statement does both.
  await sql`with closed as (
      update runs set status = ended.status from (values ${ended}) as ended(run_id, status) where runs.run_id = ended.run_id
    )
    update requests set status = 'canceled'
    where run_id in (select run_id from (values ${ended}) as ended(run_id, status)) and status = 'pending'`.execute(trx);
}

async function runsOf(trx: ApprovalDb, runIds: readonly string[]): Promise<Map<string, { tenant: string; workflow: string }>> {
  const rows = await trx
    .selectFrom('runs')
    .select(['run_id', 'tenant', 'workflow'])
    .where('run_id', 'in', [...new Set(runIds)])
    .execute();
  return new Map(rows.map((r) => [r.run_id, r]));
}

// Postgres text and jsonb cannot hold NUL. This projection has no per-event dead letter, so one
// such event would stall every run's inbox: store the character as U+FFFD instead.
const NUL = '\u0000';

function text(value: string): string {
  return value.replaceAll(NUL, '\uFFFD');
}

function json(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? text(v) : v));
}
