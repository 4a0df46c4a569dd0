import { z } from 'zod';
import { actorSchema } from './identity';
import { runStatusSchema } from './run-status';

/** Thread ids: `thr_` and a ULID (also a safe NATS subject token, like a run id). */
export const THREAD_ID_PATTERN = /^thr_[0-9A-HJKMNP-TV-Z]{26}$/;
export const threadIdSchema = z.string().regex(THREAD_ID_PATTERN, 'not a thread id (thr_ and a ULID)');

/**
 * What a run started on a busy thread does (the thread's previous run has not ended): `reject`
 * (409 `thread_busy`), `enqueue` (it starts when the runs before it have ended, from the state they
 * leave), `interrupt` (the running one is canceled and the new one starts from the state so far),
 * `rollback` (the running one is canceled and left out of the thread's state).
 */
export const MULTITASK_STRATEGIES = ['reject', 'enqueue', 'interrupt', 'rollback'] as const;
export const multitaskStrategySchema = z.enum(MULTITASK_STRATEGIES);
export type MultitaskStrategy = z.infer<typeof multitaskStrategySchema>;

/**
 * A run's place on its thread: `pending` while it waits (enqueued) for the runs before it, then
 * the run's own status. `rolled_back` runs are left out of the thread's state.
 */
export const threadRunStatusSchema = z.union([runStatusSchema, z.enum(['pending', 'rolled_back'])]);
export type ThreadRunStatus = z.infer<typeof threadRunStatusSchema>;

const timestamp = z.string().describe('An ISO 8601 timestamp.');

export const threadRunSchema = z.object({
  runId: z.string(),
  /** 1 for the thread's first run. */
  position: z.number().int().positive(),
  workflow: z.string(),
  status: threadRunStatusSchema,
  multitaskStrategy: multitaskStrategySchema,
  queuedAt: timestamp,
});
export type ThreadRun = z.infer<typeof threadRunSchema>;

export const threadSchema = z.object({
  threadId: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  createdAt: timestamp,
  createdBy: actorSchema,
  /** `busy` while one of its runs has not ended (or waits to start). */
  status: z.enum(['idle', 'busy']),
  /** The run whose end the thread's state is from; null before any run completed. */
  stateFromRun: z.string().nullable(),
  runs: z.number().int().nonnegative(),
});
export type Thread = z.infer<typeof threadSchema>;
