import { SCHEDULE_UPCOMING_FIRINGS, type Actor, type Principal, type Schedule, type ScheduleFiring } from '@spindle/contracts';
import type { GatewayTables } from '@spindle/db';
import type { Kysely, Selectable, Transaction } from 'kysely';
import { parseCron, upcomingFirings, type CatchUp } from './cron-schedule';

export type ScheduleRow = Selectable<GatewayTables['schedules']>;
type Db = Kysely<GatewayTables> | Transaction<GatewayTables>;

/** Schedules and their firings. */
export class ScheduleRepository {
  constructor(readonly db: Kysely<GatewayTables>) {}

  async create(row: {
    id: string;
    tenant: string;
    cron: string;
    timezone: string;
    workflow: string;
    version?: number;
    input?: unknown;
    overlap: string;
    catchUp: CatchUp;
    nextFireAt: Date | null;
    caller: Principal;
  }): Promise<void> {
    await this.db
      .insertInto('schedules')
      .values({
        id: row.id,
        tenant_id: row.tenant,
        cron: row.cron,
        timezone: row.timezone,
        workflow: row.workflow,
        version: row.version ?? null,
        input: row.input === undefined ? null : JSON.stringify(row.input),
        overlap: row.overlap,
        catch_up: row.catchUp,
        next_fire_at: row.nextFireAt,
        last_run_id: null,
        caller: JSON.stringify(row.caller),
        created_at: new Date(),
        deleted_at: null,
      })
      .execute();
  }

  async find(tenant: string, id: string): Promise<ScheduleRow | undefined> {
    return this.live(tenant).where('id', '=', id).executeTakeFirst();
  }

  async list(tenant: string): Promise<ScheduleRow[]> {
    return this.live(tenant).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1_000).execute();
  }

  async setPaused(id: string, paused: boolean, nextFireAt: Date | null): Promise<void> {
    await this.db.updateTable('schedules').set({ paused, next_fire_at: nextFireAt }).where('id', '=', id).execute();
  }

  async delete(tenant: string, id: string): Promise<boolean> {
    const gone = await this.db
      .updateTable('schedules')
      .set({ deleted_at: new Date() })
      .where('tenant_id', '=', tenant)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return gone.numUpdatedRows > 0n;
  }

  /** Adds firings (a time already there is left as it is: it was made by whoever made it first). */
  async addFirings(db: Db, scheduleId: string, times: readonly Date[]): Promise<void> {
    if (times.length === 0) return;
    await db
      .insertInto('schedule_firings')
      .values(times.map((t) => ({ schedule_id: scheduleId, fire_at: t, outcome: 'pending', run_id: null, detail: null, decided_at: null })))
      .onConflict((oc) => oc.columns(['schedule_id', 'fire_at']).doNothing())
      .execute();
  }

  async firings(scheduleId: string, limit = 100): Promise<ScheduleFiring[]> {
    const rows = await this.db
      .selectFrom('schedule_firings')
      .selectAll()
      .where('schedule_id', '=', scheduleId)
      .orderBy('fire_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      fireAt: r.fire_at.toISOString(),
      outcome: r.outcome as ScheduleFiring['outcome'],
      runId: r.run_id,
      detail: r.detail,
    }));
  }

  private live(tenant: string) {
    return this.db.selectFrom('schedules').selectAll().where('tenant_id', '=', tenant).where('deleted_at', 'is', null);
  }
}

/** A schedule as the API shows it; `upcoming` is read from the cron with the scheduler's own code, from `now`. */
export const scheduleView = (row: ScheduleRow, now = new Date()): Schedule => ({
  scheduleId: row.id,
  cron: row.cron,
  timezone: row.timezone,
  workflow: row.workflow,
  version: row.version,
  input: row.input ?? null,
  overlap: row.overlap as Schedule['overlap'],
  catchUp: row.catch_up as Schedule['catchUp'],
  paused: row.paused,
  nextFireAt: row.paused ? null : (row.next_fire_at?.toISOString() ?? null),
  upcoming: row.paused
    ? []
    : upcomingFirings(parseCron(row.cron, row.timezone, 0), now, SCHEDULE_UPCOMING_FIRINGS).map((t) => t.toISOString()),
  lastRunId: row.last_run_id,
  createdAt: row.created_at.toISOString(),
  createdBy: (row.caller as Principal).actor as Actor,
});
