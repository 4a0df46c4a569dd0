import { context } from '@opentelemetry/api';
import { lastEventOf, type Bus } from '@spindle/bus';
import { isSpindleError, isTerminalEvent, type Principal } from '@spindle/contracts';
import { failedForGood } from '../start-failure';
import { dueFirings, parseCron, type CatchUp } from './cron-schedule';
import { planFiring, type ScheduleOverlap } from './firing-plan';
import type { Logger } from '@spindle/telemetry';
import type { RunCancels, RunStarts } from '../run-ports';
import type { ScheduleRepository, ScheduleRow } from './schedule.repository';

const BATCH = 50;

/**
 * Fires schedules, on a pass each second. First the plan: each due schedule (leased with `SKIP
 * LOCKED`) gets a row per firing time (one per time, whoever inserts it first) and its next time.
 * Then the firings, oldest first and one at a time per schedule: started as a normal run whose
 * idempotency key is the schedule and the time, so a firing two gateways reach starts one run;
 * or skipped, or left for later, as the schedule's overlap policy says.
 */
export class Scheduler {
  constructor(
    private readonly schedules: ScheduleRepository,
    private readonly starter: RunStarts,
    private readonly canceller: RunCancels,
    private readonly bus: Bus,
    private readonly logger: Logger,
  ) {}

  async pass(): Promise<void> {
    await this.plan();
    await this.fire();
  }

  private async plan(): Promise<void> {
    const now = new Date();
    await this.schedules.db.transaction().execute(async (trx) => {
      const due = await trx
        .selectFrom('schedules')
        .selectAll()
        .where('deleted_at', 'is', null)
        .where('paused', '=', false)
        .where('next_fire_at', '<=', now)
        .orderBy('next_fire_at')
        .limit(BATCH)
        .forUpdate()
        .skipLocked()
        .execute();
      for (const s of due) {
        const cron = parseCron(s.cron, s.timezone, 0);
        const { due: times, next } = dueFirings(cron, s.next_fire_at as Date, now, s.catch_up as CatchUp);
        await this.schedules.addFirings(trx, s.id, times);
        await trx.updateTable('schedules').set({ next_fire_at: next }).where('id', '=', s.id).execute();
      }
    });
  }

  private async fire(): Promise<void> {
    const pending = await this.schedules.db
      .selectFrom('schedule_firings as f')
      .innerJoin('schedules as s', 's.id', 'f.schedule_id')
      .select(['f.schedule_id', 'f.fire_at'])
      .where('f.outcome', '=', 'pending')
      .where('s.deleted_at', 'is', null)
      .orderBy('f.fire_at')
      .limit(BATCH)
      .execute();
    const oldest = new Map<string, Date>();
    for (const f of pending) if (!oldest.has(f.schedule_id)) oldest.set(f.schedule_id, f.fire_at);
    for (const [scheduleId, fireAt] of oldest) {
      try {
        await this.fireOne(scheduleId, fireAt);
      } catch (err) {
        this.logger.warn({ err, scheduleId, fireAt }, 'could not fire a schedule; trying again');
      }
    }
  }

  /** Decides one firing under its row's lock (another gateway skips it meanwhile). */
  private async fireOne(scheduleId: string, fireAt: Date): Promise<void> {
    await this.schedules.db.transaction().execute(async (trx) => {
      const firing = await trx
        .selectFrom('schedule_firings')
        .select('outcome')
        .where('schedule_id', '=', scheduleId)
        .where('fire_at', '=', fireAt)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst();
      if (firing?.outcome !== 'pending') return;
      const s = await trx.selectFrom('schedules').selectAll().where('id', '=', scheduleId).executeTakeFirstOrThrow();
      const decide = (outcome: string, runId: string | null, detail: string | null) =>
        trx
          .updateTable('schedule_firings')
          .set({ outcome, run_id: runId, detail, decided_at: new Date() })
          .where('schedule_id', '=', scheduleId)
          .where('fire_at', '=', fireAt)
          .execute();
      const running = s.last_run_id && !(await this.ended(s.last_run_id)) ? s.last_run_id : undefined;
      const step = planFiring(s.overlap as ScheduleOverlap, running);
      if (step.kind === 'skip') return void (await decide('skipped', null, step.detail));
      if (step.kind === 'wait') return;
      if (step.kind === 'cancel_then_start') await this.cancelPrevious(step.runId, s);
      try {
        const { accepted } = await this.starter.start(
          s.caller as Principal,
          s.workflow,
          { input: s.input ?? undefined, ...(s.version !== null ? { version: s.version } : {}) },
          `sch:${s.id}:${fireAt.toISOString()}`,
          context.active(),
          { scheduledBy: { scheduleId: s.id, fireAt: fireAt.toISOString() } },
        );
        await decide('started', accepted.runId, null);
        await trx.updateTable('schedules').set({ last_run_id: accepted.runId }).where('id', '=', s.id).execute();
      } catch (e) {
        // An outage, the start rate: the firing waits for the next pass (thrown: the pass logs it).
        const failure = failedForGood(e);
        if (!failure) throw e;
        await decide('failed', null, `${failure.code}: ${failure.message}`);
      }
    });
  }

  private async ended(runId: string): Promise<boolean> {
    const last = await lastEventOf(this.bus, runId);
    return !last || isTerminalEvent(last.event);
  }

  private async cancelPrevious(runId: string, s: ScheduleRow): Promise<void> {
    try {
      await this.canceller.cancel(runId, `schedule ${s.id} fired again (overlap cancel_previous)`, (s.caller as Principal).actor);
    } catch (e) {
      if (!(isSpindleError(e) && e.code === 'conflict')) throw e;
    }
  }
}
