import type { Command } from 'commander';
import { ExitCode } from '../exit-codes';
import { scheduleDetail, scheduleTable } from '../control-tables';
import { printed, type Act } from './act';

/** `spindle schedules list|show|pause|resume|trigger`: workflows run on a cron. */
export function addScheduleCommands(program: Command, act: Act): void {
  const schedules = program.command('schedules').description('schedules: a workflow run on a cron, in a time zone');
  schedules
    .command('list')
    .description('schedules: cron, zone, workflow, paused or not, and when each fires next')
    .action(
      act(async (ctx) => {
        const list = await ctx.client.schedules.list();
        if (ctx.json) return printed(ctx, list);
        scheduleTable(list.schedules).forEach(ctx.print);
        return ExitCode.ok;
      }),
    );
  schedules
    .command('show <scheduleId>')
    .description('a schedule, its next firings and its firing history (newest first)')
    .action(
      act(async (ctx, scheduleId: string) => {
        const [schedule, { firings }] = await Promise.all([ctx.client.schedules.get(scheduleId), ctx.client.schedules.firings(scheduleId)]);
        if (ctx.json) return printed(ctx, { schedule, firings });
        scheduleDetail(schedule, firings).forEach(ctx.print);
        return ExitCode.ok;
      }),
    );
  for (const change of ['pause', 'resume'] as const)
    schedules
      .command(`${change} <scheduleId>`)
      .description(change === 'pause' ? 'stop firing (missed firings are not made up)' : 'fire again from the next cron time')
      .action(
        act(async (ctx, scheduleId: string) => {
          const schedule = await ctx.client.schedules[change](scheduleId);
          if (ctx.json) return printed(ctx, schedule);
          ctx.print(`${schedule.scheduleId} ${schedule.paused ? 'paused' : `active, next firing ${schedule.nextFireAt ?? '-'}`}`);
          return ExitCode.ok;
        }),
      );
  schedules
    .command('trigger <scheduleId>')
    .description('a firing now, decided by the overlap policy like any other')
    .action(
      act(async (ctx, scheduleId: string) => {
        const fired = await ctx.client.schedules.trigger(scheduleId);
        if (ctx.json) return printed(ctx, fired);
        ctx.print(`${fired.scheduleId} fired at ${fired.fireAt}; its run: spindle schedules show ${fired.scheduleId}`);
        return ExitCode.ok;
      }),
    );
}
