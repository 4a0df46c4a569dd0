import type { Context } from '@opentelemetry/api';
import type { Actor, Principal, RunEventOf } from '@spindle/contracts';

type Queued = RunEventOf<'run.queued'>['data'];

/**
 * How the control plane starts a run: through the API's own start, `RunStarter` (its checks, quota,
 * idempotency key and admission), named as a schedule's firing or as a thread's run.
 */
export interface RunStarts {
  start(
    caller: Principal,
    workflow: string,
    body: unknown,
    idempotencyKey: string | undefined,
    trace: Context,
    opts: { scheduledBy: NonNullable<Queued['scheduledBy']> } | { runId: string; thread: NonNullable<Queued['thread']> },
  ): Promise<{ accepted: { runId: string } }>;
}

/** How the control plane stops a run (`conflict` when it ended meanwhile). */
export interface RunCancels {
  cancel(runId: string, reason: string, by: Actor): Promise<unknown>;
}
