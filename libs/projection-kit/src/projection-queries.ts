import { serveQueries, type Bus, type Subscription } from '@spindle/bus';
import { describeIssues, SpindleError, zodFieldIssues, type QueryService } from '@spindle/contracts';
import { asDatabaseFault } from '@spindle/db';
import type { Logger } from '@spindle/telemetry';
import type { z } from 'zod';

export type QueryHandlersFor<S extends Record<string, z.ZodType>, R extends { [Op in keyof S]: unknown }> = {
  [Op in keyof S]: (query: z.output<S[Op]>) => Promise<R[Op]>;
};

export interface ProjectionQueriesOptions {
  /** How far a run is applied: a query naming `runId` and `waitForSeq` waits for it (read-your-writes). */
  appliedSeq(runId: string): Promise<number>;
  logger: Logger;
  /** The longest a query waits for its seq before answering with what there is. */
  maxWaitMs?: number;
}

/**
 * Serves a projection's reads over NATS request/reply: each payload is validated against its
 * schema (`validation_failed` naming the fields), and one naming a run and a seq is answered
 * only once that seq is applied, within a bound — so the gateway never shows a read model older
 * than the event it just streamed. The same for every projection.
 */
export function serveProjectionQueries<S extends Record<string, z.ZodType>, R extends { [Op in keyof S]: unknown }>(
  bus: Bus,
  service: QueryService,
  schemas: S,
  handlers: QueryHandlersFor<S, R>,
  opts: ProjectionQueriesOptions,
): Subscription[] {
  const answer = async (op: string, payload: unknown) => {
    const query = parseQuery(schemas, op, payload) as { runId?: unknown; waitForSeq?: unknown };
    if (typeof query.runId === 'string' && typeof query.waitForSeq === 'number') {
      await waitForAppliedSeq(opts.appliedSeq, query.runId, query.waitForSeq, opts.maxWaitMs);
    }
    return handlers[op as keyof S](query as never);
  };
  const entries = Object.keys(schemas).map((op) => [
    op,
    // A read that found Postgres gone answers `database_unavailable` (503, Retry-After), not `internal`.
    (payload: unknown) =>
      answer(op, payload).catch((e: unknown) => {
        throw asDatabaseFault(e);
      }),
  ]);
  return serveQueries(bus, service, Object.fromEntries(entries), (e) => opts.logger.error({ err: e }, `${service} query failed`));
}

/**
 * Waits until `appliedSeq(runId)` reaches `seq`, bounded, so a seq that never comes (a wrong
 * number, a stalled log) costs the caller `maxWaitMs`, not forever.
 */
export async function waitForAppliedSeq(
  appliedSeq: (runId: string) => Promise<number>,
  runId: string,
  seq: number,
  maxWaitMs = 3_000,
  pollMs = 25,
): Promise<void> {
  const deadline = Date.now() + maxWaitMs;
  while ((await appliedSeq(runId)) < seq && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Validates a query's payload against its schema; a miss is `validation_failed` naming each field. */
export function parseQuery<S extends Record<string, z.ZodType>>(schemas: S, op: keyof S & string, payload: unknown): z.output<S[keyof S]> {
  const parsed = schemas[op].safeParse(payload);
  if (parsed.success) return parsed.data as z.output<S[keyof S]>;
  const issues = zodFieldIssues(parsed.error.issues, { whole: '(body)' });
  throw new SpindleError('validation_failed', `${op}: ${describeIssues(issues)}`, { issues });
}

/**
 * The `eraseRun` query of a projection's service: the kit has already waited (bounded) for the
 * run's terminal event to be applied; a projection still behind it refuses, so no event applied
 * after the erase can bring the run's rows back. The caller (the gateway's DELETE) retries.
 */
export function eraseRunHandler(
  runner: { eraseRuns(runIds: readonly string[]): Promise<void> },
  appliedSeq: (runId: string) => Promise<number>,
): (query: { runId: string; waitForSeq: number }) => Promise<{ erased: true }> {
  return async ({ runId, waitForSeq }) => {
    if ((await appliedSeq(runId)) < waitForSeq) {
      throw new SpindleError('service_unavailable', `the projection has not applied run ${runId} to seq ${waitForSeq} yet; retry shortly`);
    }
    await runner.eraseRuns([runId]);
    return { erased: true };
  };
}
