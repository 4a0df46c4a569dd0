import type { Provider } from '@nestjs/common';
import { ScheduleRepository } from '@spindle/control-plane';
import type { GatewayTables } from '@spindle/db';
import { DATABASE } from '@spindle/service-db';
import type { Kysely } from 'kysely';

/** Schedules' rows; the dispatcher fires them. */
export function scheduleProviders(): Provider[] {
  return [{ provide: ScheduleRepository, inject: [DATABASE], useFactory: (db: Kysely<GatewayTables>) => new ScheduleRepository(db) }];
}
