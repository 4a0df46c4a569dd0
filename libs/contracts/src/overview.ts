import { z } from 'zod';
import { tenantIdSchema } from './identity';

/**
 * The overview dashboards: what a tenant's runs did over the last days, overall or for one
 * workflow, computed by the trace recorder's and the approval service's projections.
 */

/** One UTC day of runs. */
export const overviewDaySchema = z.object({
  day: z.string().describe('The UTC day, `YYYY-MM-DD`.'),
  completed: z.number().int(),
  failed: z.number().int(),
  canceled: z.number().int(),
  /** Queued, running or waiting when asked. */
  active: z.number().int(),
  totalTokens: z.number().int(),
  costUsd: z.number(),
  /** Wall time (libs/contracts durations) of the runs that ended of that day's queue; null when none did. */
  p50DurationMs: z.number().nullable(),
  p95DurationMs: z.number().nullable(),
});
export type OverviewDay = z.infer<typeof overviewDaySchema>;

export const overviewTotalsSchema = overviewDaySchema.omit({ day: true }).extend({ runs: z.number().int() });

export const slowNodeSchema = z.object({
  workflow: z.string(),
  nodeId: z.string(),
  executions: z.number().int(),
  p50Ms: z.number(),
  p95Ms: z.number(),
});

/** A score's trend: its count and mean (a boolean as 1 or 0; categories have no mean) per UTC day of the runs and workflow version. */
export const scoreTrendPointSchema = z.object({
  name: z.string(),
  day: z.string().describe('The UTC day the scored runs were queued, `YYYY-MM-DD`.'),
  workflow: z.string(),
  workflowVersion: z.number().int(),
  count: z.number().int(),
  mean: z.number().nullable(),
});
export type ScoreTrendPoint = z.infer<typeof scoreTrendPointSchema>;

/** What the trace recorder answers: everything but the requests. */
export const runsOverviewSchema = z.object({
  totals: overviewTotalsSchema,
  /** Every day of the window, oldest first, days without runs included. */
  daily: z.array(overviewDaySchema),
  topErrors: z.array(z.object({ code: z.string(), runs: z.number().int() })),
  /** Node executions with the longest p95, at most 8. */
  slowestNodes: z.array(slowNodeSchema),
  /** Scores of the window's runs by name, day and workflow version (at most 500 points, newest days first kept). */
  scores: z.array(scoreTrendPointSchema),
});
export type RunsOverview = z.infer<typeof runsOverviewSchema>;

/** Open requests for a person by how long they have waited. */
export const PENDING_AGE_BUCKETS = ['under 1 h', '1–24 h', '1–7 d', 'over 7 d'] as const;
export const pendingAgesSchema = z.object({
  buckets: z.array(z.object({ age: z.enum(PENDING_AGE_BUCKETS), requests: z.number().int() })),
  oldestRequestedAt: z.string().nullable(),
});
export type PendingAges = z.infer<typeof pendingAgesSchema>;

export const overviewSchema = runsOverviewSchema.extend({
  workflow: z.string().nullable(),
  days: z.number().int(),
  /** The window: from the start of the first UTC day to now. */
  from: z.string(),
  to: z.string(),
  pendingRequests: pendingAgesSchema,
});
export type Overview = z.infer<typeof overviewSchema>;

/** The trace recorder's and the approval service's queries behind the overview (tenant first). */
export const runsOverviewQuerySchema = z.object({
  tenant: tenantIdSchema,
  workflow: z.string().optional(),
  from: z.iso.datetime({ offset: true }),
});
export const pendingAgesQuerySchema = z.object({ tenant: tenantIdSchema, workflow: z.string().optional() });
