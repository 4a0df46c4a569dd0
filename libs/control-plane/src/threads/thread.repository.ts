import type { Actor, MultitaskStrategy, Principal, Thread, ThreadRun, ThreadRunBody, ThreadRunStatus } from '@spindle/contracts';
import { isActive, RUNNING_STATUSES, type StoredThreadRunStatus } from './thread-start-plan';
import { olderThanCursor, type GatewayTables, type KeysetCursor } from '@spindle/db';
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';

type Db = Kysely<GatewayTables> | Transaction<GatewayTables>;

/** A start that took longer than this was cut short (its gateway died): it is looked at again. */
const STALE_START_MS = 30_000;

/** What an enqueued run is started with when its turn comes. */
export interface PendingRequest {
  body: ThreadRunBody;
  caller: Principal;
  /** Runs this one rolls back (`rollback`): its `run.queued` names them. */
  rollsBack: string[];
}

export type ThreadRunRow = Selectable<GatewayTables['thread_runs']>;

/** The gateway's thread tables: threads as callers made them, and their runs as the log says. */
export class ThreadRepository {
  constructor(private readonly db: Kysely<GatewayTables>) {}

  async create(id: string, tenant: string, metadata: Record<string, unknown>, by: Actor): Promise<void> {
    await this.db
      .insertInto('threads')
      .values({ id, tenant_id: tenant, metadata: JSON.stringify(metadata), created_at: new Date(), created_by: JSON.stringify(by) })
      .execute();
  }

  async find(tenant: string, id: string, db: Db = this.db): Promise<Thread | undefined> {
    const row = await db.selectFrom('threads').selectAll().where('tenant_id', '=', tenant).where('id', '=', id).executeTakeFirst();
    return row && (await this.view(row, db));
  }

  /** Newest first, `limit` at a time after the cursor's thread. */
  async list(tenant: string, limit: number, after?: KeysetCursor): Promise<Thread[]> {
    let query = this.db.selectFrom('threads').selectAll().where('tenant_id', '=', tenant);
    if (after) query = query.where(olderThanCursor(after));
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return Promise.all(rows.map((row) => this.view(row, this.db)));
  }

  /** Locks the thread for a decision about its runs (one start at a time per thread, across gateways). */
  async lock(trx: Transaction<GatewayTables>, id: string, tenant?: string): Promise<boolean> {
    let query = trx.selectFrom('threads').select('id').where('id', '=', id);
    if (tenant !== undefined) query = query.where('tenant_id', '=', tenant);
    // Not FOR UPDATE: the projection's inserts of the thread's runs (their foreign key) must not wait for it.
    return (await query.forNoKeyUpdate().executeTakeFirst()) !== undefined;
  }

  async runs(threadId: string, db: Db = this.db): Promise<ThreadRunRow[]> {
    return db.selectFrom('thread_runs').selectAll().where('thread_id', '=', threadId).orderBy('position').orderBy('queued_at').execute();
  }

  /** The position the thread's next run takes. */
  async takePosition(trx: Transaction<GatewayTables>, threadId: string): Promise<number> {
    const row = await trx
      .updateTable('threads')
      .set({ next_position: sql`next_position + 1` })
      .where('id', '=', threadId)
      .returning('next_position')
      .executeTakeFirstOrThrow();
    return row.next_position - 1;
  }

  async insertRun(
    trx: Transaction<GatewayTables>,
    run: {
      runId: string;
      threadId: string;
      position: number;
      workflow: string;
      status: StoredThreadRunStatus;
      strategy: MultitaskStrategy;
    },
    pending?: PendingRequest,
  ): Promise<void> {
    await trx
      .insertInto('thread_runs')
      .values({
        run_id: run.runId,
        thread_id: run.threadId,
        position: run.position,
        workflow: run.workflow,
        status: run.status,
        strategy: run.strategy,
        queued_at: new Date(),
        request: pending ? JSON.stringify(pending) : null,
        error: null,
        output: null,
        starting_at: null,
      })
      .execute();
  }

  async setStatus(db: Db, runIds: readonly string[], status: StoredThreadRunStatus, error?: unknown): Promise<void> {
    if (runIds.length === 0) return;
    await db
      .updateTable('thread_runs')
      .set({
        status,
        starting_at: status === 'starting' ? new Date() : null,
        ...(error !== undefined ? { error: JSON.stringify(error) } : {}),
      })
      .where('run_id', 'in', [...runIds])
      .execute();
  }

  /** Moves a run on from `starting` (only if nothing, the projection included, moved it already). */
  async startedAs(runId: string, status: StoredThreadRunStatus, error?: unknown): Promise<void> {
    await this.db
      .updateTable('thread_runs')
      .set({ status, starting_at: null, ...(error !== undefined ? { error: JSON.stringify(error) } : {}) })
      .where('run_id', '=', runId)
      .where('status', '=', 'starting')
      .execute();
  }

  /** Starts cut short (their gateway died): back to `pending`, to be started again. */
  async staleStarts(): Promise<ThreadRunRow[]> {
    return this.db
      .selectFrom('thread_runs')
      .selectAll()
      .where('status', '=', 'starting')
      .where('starting_at', '<', new Date(Date.now() - STALE_START_MS))
      .execute();
  }

  /** The state the thread's next run starts from: the end state of its last completed run that was not rolled back. */
  async state(threadId: string, db: Db = this.db): Promise<{ state: Record<string, unknown>; fromRun: string | null }> {
    const row = await db
      .selectFrom('thread_runs')
      .select(['run_id', 'output'])
      .where('thread_id', '=', threadId)
      .where('status', '=', 'completed')
      .orderBy('position', 'desc')
      .orderBy('queued_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { state: (row.output ?? {}) as Record<string, unknown>, fromRun: row.run_id } : { state: {}, fromRun: null };
  }

  /** Threads with a run waiting for its turn and none in the log still going. */
  async readyToDispatch(limit = 100): Promise<string[]> {
    const rows = await this.db
      .selectFrom('thread_runs as p')
      .select('p.thread_id')
      .distinct()
      .where('p.status', '=', 'pending')
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('thread_runs as r')
              .select('r.run_id')
              .whereRef('r.thread_id', '=', 'p.thread_id')
              .where('r.status', 'in', [...RUNNING_STATUSES]),
          ),
        ),
      )
      .limit(limit)
      .execute();
    return rows.map((r) => r.thread_id);
  }

  private async view(row: Selectable<GatewayTables['threads']>, db: Db): Promise<Thread> {
    const runs = await this.runs(row.id, db);
    const { fromRun } = await this.state(row.id, db);
    return {
      threadId: row.id,
      metadata: row.metadata as Record<string, unknown>,
      createdAt: row.created_at.toISOString(),
      createdBy: row.created_by as Actor,
      status: runs.some((r) => isActive(r.status)) ? 'busy' : 'idle',
      stateFromRun: fromRun,
      runs: runs.length,
    };
  }
}

export const threadRunView = (row: ThreadRunRow): ThreadRun => ({
  runId: row.run_id,
  position: row.position,
  workflow: row.workflow,
  status: row.status === 'starting' ? 'pending' : (row.status as ThreadRunStatus),
  multitaskStrategy: row.strategy as MultitaskStrategy,
  queuedAt: row.queued_at.toISOString(),
});
