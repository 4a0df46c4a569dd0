import type { Provider } from '@nestjs/common';
import type { Bus } from '@spindle/bus';
import type { GatewayTables } from '@spindle/db';
import { DATABASE } from '@spindle/service-db';
import { BUS, LOGGER, PeriodicLoop } from '@spindle/service-kit';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { RunCanceller } from '../runs/run-canceller.service';
import { Scheduler, ScheduleRepository, RunStarter } from '@spindle/control-plane';

const SCHEDULER_LOOP = Symbol('SCHEDULER_LOOP');

/** Schedules, and the pass that fires them each second (on every gateway: firings are made once whoever makes them). */
export function scheduleProviders(): Provider[] {
  return [
    { provide: ScheduleRepository, inject: [DATABASE], useFactory: (db: Kysely<GatewayTables>) => new ScheduleRepository(db) },
    {
      provide: Scheduler,
      inject: [ScheduleRepository, RunStarter, RunCanceller, BUS, LOGGER],
      useFactory: (rows: ScheduleRepository, starter: RunStarter, canceller: RunCanceller, bus: Bus, logger: Logger) =>
        new Scheduler(rows, starter, canceller, bus, logger),
    },
    {
      provide: SCHEDULER_LOOP,
      inject: [Scheduler, LOGGER],
      useFactory: (scheduler: Scheduler, logger: Logger) =>
        new PeriodicLoop({ name: 'schedule', everyMs: 1_000, pass: () => scheduler.pass(), logger }),
    },
  ];
}
