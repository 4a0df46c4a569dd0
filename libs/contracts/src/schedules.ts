import { z } from 'zod';
import { actorSchema } from './identity';

/** Schedule ids: `sch_` and a ULID. */
export const SCHEDULE_ID_PATTERN = /^sch_[0-9A-HJKMNP-TV-Z]{26}$/;

/** When a firing comes while the schedule's last run has not ended: skip it, start it after that run, or cancel that run. */
export const scheduleOverlapSchema = z.enum(['skip', 'queue', 'cancel_previous']);
/** Firings missed while no gateway was up: none (unless within 30 s), the latest, or each (at most 100). */
export const scheduleCatchUpSchema = z.enum(['none', 'latest', 'all']);

/** How many of a schedule's next firings its view lists. */
export const SCHEDULE_UPCOMING_FIRINGS = 5;

const timestamp = z.string().describe('An ISO 8601 timestamp.');

export const scheduleSchema = z.object({
  scheduleId: z.string(),
  cron: z.string(),
  timezone: z.string(),
  workflow: z.string(),
  /** Null: the latest version at each firing. */
  version: z.number().int().nullable(),
  input: z.unknown(),
  overlap: scheduleOverlapSchema,
  catchUp: scheduleCatchUpSchema,
  paused: z.boolean(),
  nextFireAt: timestamp.nullable(),
  /** The cron's next firings from now (at most `SCHEDULE_UPCOMING_FIRINGS`); empty while paused. */
  upcoming: z.array(timestamp),
  lastRunId: z.string().nullable(),
  createdAt: timestamp,
  createdBy: actorSchema,
});
export type Schedule = z.infer<typeof scheduleSchema>;

export const scheduleFiringSchema = z.object({
  fireAt: timestamp,
  /** `pending` while it waits to start (overlap `queue`), `manual` for a trigger. */
  outcome: z.enum(['pending', 'started', 'skipped', 'failed']),
  runId: z.string().nullable(),
  detail: z.string().nullable(),
});
export type ScheduleFiring = z.infer<typeof scheduleFiringSchema>;
