import type { Provider } from '@nestjs/common';
import { ScheduleRepository } from '@spindle/control-plane';
import { repositoryProvider } from '@spindle/service-db';

/** Schedules' rows; the dispatcher fires them. */
export function scheduleProviders(): Provider[] {
  return [repositoryProvider(ScheduleRepository)];
}
