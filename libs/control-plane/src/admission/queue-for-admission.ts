import type { Context } from '@opentelemetry/api';
import { injectIntoRecord } from '@spindle/telemetry';
import type { Logger } from '@spindle/telemetry';
import type { RunAdmission } from './run-admission';

/**
 * Hands a run whose `run.queued` is in the log to the admission. Its failure fails nothing: the
 * log is what counts, and the admission projection queues the run from its `run.queued` anyway.
 */
export async function queueForAdmission(
  admission: RunAdmission,
  run: { runId: string; tenant: string; trace: Context },
  logger: Logger,
): Promise<void> {
  await admission
    .enqueue({ runId: run.runId, tenant: run.tenant, queuedAt: new Date().toISOString(), trace: injectIntoRecord({}, run.trace) })
    .catch((err: unknown) => logger.warn({ err, runId: run.runId }, 'could not queue the run for admission now; the projection will'));
}
