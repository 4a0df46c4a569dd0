import type { Context } from '@opentelemetry/api';
import type { Actor, Principal } from '@spindle/contracts';

/** How a firing starts its run: the API's own start (its checks, quota and admission), keyed by the firing. */
export interface ScheduledStarts {
  start(
    caller: Principal,
    workflow: string,
    body: { input?: unknown; version?: number },
    idempotencyKey: string,
    trace: Context,
    opts: { scheduledBy: { scheduleId: string; fireAt: string } },
  ): Promise<{ accepted: { runId: string } }>;
}

/** How a firing with overlap `cancel_previous` stops the last run (`conflict` when it ended meanwhile). */
export interface RunCancels {
  cancel(runId: string, reason: string, by: Actor): Promise<unknown>;
}
