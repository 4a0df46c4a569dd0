import type { GatewayTables } from '@spindle/db';
import type { AdmissionState } from '@spindle/projections';
import { sql, type Kysely, type Transaction } from 'kysely';

type GatewayDb = Kysely<GatewayTables> | Transaction<GatewayTables>;
type LiveState = Exclude<AdmissionState, 'done'>;

export interface QueuedRun {
  runId: string;
  tenant: string;
  queuedAt: string;
  trace: Record<string, string> | null;
}

/** One tenant's share of the admission table: what waits, what runs, and its own limit if it has one. */
export interface TenantQueueRow {
  tenant: string;
  waiting: number;
  active: number;
  maxRunning: number | null;
  lastAdmittedAt: Date | null;
}

/** One admission at a time across every gateway on the database. */
const ADMISSION_LOCK = 0x5b1d_0002;

/** The admission's rows: runs that have not ended, and when each tenant was last served. */
export class AdmissionRepository {
  /** Holds the admission lock until the transaction ends; later statements see every earlier admission. */
  async lock(trx: Transaction<GatewayTables>): Promise<void> {
    // A literal, not a parameter: as a transaction's first statement, its BEGIN travels with it.
    await sql`select pg_advisory_xact_lock(${sql.lit(ADMISSION_LOCK)})`.execute(trx);
  }

  /**
   * Queues runs (a run already there keeps its row: the gateway and the projection both add it;
   * a waiting row the projection added without its trace context takes the gateway's).
   */
  async enqueue(db: GatewayDb, runs: readonly QueuedRun[]): Promise<void> {
    if (runs.length === 0) return;
    await db
      .insertInto('run_admissions')
      .values(
        runs.map((r) => ({
          run_id: r.runId,
          tenant_id: r.tenant,
          queued_at: r.queuedAt,
          state: 'waiting' as const,
          trace: r.trace ? JSON.stringify(r.trace) : null,
        })),
      )
      .onConflict((oc) =>
        oc
          .column('run_id')
          .doUpdateSet({ trace: sql`coalesce(run_admissions.trace, excluded.trace)` })
          .where('run_admissions.state', '=', 'waiting')
          .where('run_admissions.trace', 'is', null),
      )
      .execute();
  }

  /**
   * Queues one run and admits it at once when nothing waits before it and there is room (the window,
   * the tenant's limit): a start on a quiet system needs no admission pass. One round trip: the
   * database function `admission_enqueue` (migration 0010) takes the admission lock and then counts,
   * so the counts see every admission committed before it. `exists` when the row was there already
   * (the projection queued it first).
   */
  async enqueueAndAdmit(
    db: Kysely<GatewayTables>,
    run: QueuedRun,
    limits: { window: number; defaultMaxRunning: number },
  ): Promise<'admitted' | 'waiting' | 'exists'> {
    const trace = run.trace ? JSON.stringify(run.trace) : null;
    const { rows } = await sql<{ outcome: 'admitted' | 'waiting' | 'exists' }>`
      select admission_enqueue(${ADMISSION_LOCK}, ${run.runId}, ${run.tenant}, ${run.queuedAt}::timestamptz,
        ${trace}::jsonb, ${limits.window}, ${limits.defaultMaxRunning}) as outcome`.execute(db);
    return rows[0]?.outcome ?? 'exists';
  }

  async anyWaiting(db: GatewayDb): Promise<boolean> {
    const row = await db.selectFrom('run_admissions').select('run_id').where('state', '=', 'waiting').limit(1).executeTakeFirst();
    return row !== undefined;
  }

  async setState(db: GatewayDb, runIds: readonly string[], state: LiveState): Promise<void> {
    if (runIds.length === 0) return;
    await db.updateTable('run_admissions').set({ state }).where('run_id', 'in', runIds).execute();
  }

  async remove(db: GatewayDb, runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) return;
    await db.deleteFrom('run_admissions').where('run_id', 'in', runIds).execute();
  }

  async admittedCount(db: GatewayDb): Promise<number> {
    const row = await db
      .selectFrom('run_admissions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('state', '=', 'admitted')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Runs queued and not yet running, by admission state, with when the oldest of each was queued. */
  async queueDepth(db: GatewayDb): Promise<Array<{ state: 'waiting' | 'admitted'; count: number; oldest: Date }>> {
    const rows = await db
      .selectFrom('run_admissions')
      .select(['state', sql<string>`count(*)`.as('n'), sql<Date>`min(queued_at)`.as('oldest')])
      .where('state', 'in', ['waiting', 'admitted'])
      .groupBy('state')
      .execute();
    return rows.map((r) => ({ state: r.state as 'waiting' | 'admitted', count: Number(r.n), oldest: r.oldest }));
  }

  /** Every tenant with a run waiting or running. */
  async tenantQueues(db: GatewayDb): Promise<TenantQueueRow[]> {
    const rows = await db
      .selectFrom('run_admissions as a')
      .leftJoin('tenants as t', 't.id', 'a.tenant_id')
      .leftJoin('tenant_dispatch as d', 'd.tenant_id', 'a.tenant_id')
      .select([
        'a.tenant_id',
        't.max_running',
        'd.last_admitted_at',
        sql<string>`count(*) filter (where a.state = 'waiting')`.as('waiting'),
        sql<string>`count(*) filter (where a.state in ('admitted', 'running'))`.as('active'),
      ])
      .where('a.state', 'in', ['waiting', 'admitted', 'running'])
      .groupBy(['a.tenant_id', 't.max_running', 'd.last_admitted_at'])
      .execute();
    return rows.map((r) => ({
      tenant: r.tenant_id,
      waiting: Number(r.waiting),
      active: Number(r.active),
      maxRunning: r.max_running,
      lastAdmittedAt: r.last_admitted_at,
    }));
  }

  /** Admits the tenant's `count` oldest waiting runs; returns them. */
  async admitOldest(db: GatewayDb, tenant: string, count: number, now: Date): Promise<QueuedRun[]> {
    const rows = await db
      .updateTable('run_admissions')
      .set({ state: 'admitted', admitted_at: now })
      .where('run_id', 'in', (eb) =>
        eb
          .selectFrom('run_admissions')
          .select('run_id')
          .where('tenant_id', '=', tenant)
          .where('state', '=', 'waiting')
          .orderBy('queued_at')
          .orderBy('run_id')
          .limit(count),
      )
      .returning(['run_id', 'tenant_id', 'queued_at', 'trace'])
      .execute();
    await db
      .insertInto('tenant_dispatch')
      .values({ tenant_id: tenant, last_admitted_at: now })
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ last_admitted_at: now }))
      .execute();
    return rows.map(queuedRunOf);
  }

  /** Admitted runs whose start has not been seen for a while (their command may be lost): stamped again, returned. */
  async restampStale(db: GatewayDb, olderThanMs: number, now: Date): Promise<QueuedRun[]> {
    const rows = await db
      .updateTable('run_admissions')
      .set({ admitted_at: now })
      .where('state', '=', 'admitted')
      .where('admitted_at', '<', new Date(now.getTime() - olderThanMs))
      .returning(['run_id', 'tenant_id', 'queued_at', 'trace'])
      .execute();
    return rows.map(queuedRunOf);
  }

  /** Where a waiting run stands in its tenant's queue; undefined when it is not waiting. */
  async positionOf(db: GatewayDb, runId: string): Promise<{ tenant: string; ahead: number } | undefined> {
    const row = await db
      .selectFrom('run_admissions as r')
      .select([
        'r.tenant_id',
        (eb) =>
          eb
            .selectFrom('run_admissions as o')
            .select(sql<string>`count(*)`.as('n'))
            .where('o.tenant_id', '=', eb.ref('r.tenant_id'))
            .where('o.state', '=', 'waiting')
            .where(sql<boolean>`(o.queued_at, o.run_id) < (r.queued_at, r.run_id)`)
            .as('ahead'),
      ])
      .where('r.run_id', '=', runId)
      .where('r.state', '=', 'waiting')
      .executeTakeFirst();
    return row && { tenant: row.tenant_id, ahead: Number(row.ahead) };
  }
}

/** The columns an admission returns (`RETURNING run_id, tenant_id, queued_at, trace`), as a `QueuedRun`. */
function queuedRunOf(row: { run_id: string; tenant_id: string; queued_at: Date; trace: unknown }): QueuedRun {
  return {
    runId: row.run_id,
    tenant: row.tenant_id,
    queuedAt: row.queued_at.toISOString(),
    trace: (row.trace as Record<string, string> | null) ?? null,
  };
}
