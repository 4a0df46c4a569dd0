import { SpindleError } from '@spindle/contracts';
import type { z } from 'zod';

/**
 * Read-your-writes for a projection's query: waits until `lastApplied(runId)` reaches `seq`,
 * bounded, so a seq that never comes (a wrong number, a stalled log) costs the caller
 * `maxWaitMs`, not forever. Then the query answers with what there is.
 */
export async function waitForAppliedSeq(lastApplied: (runId: string) => Promise<number>, runId: string, seq: number | undefined, maxWaitMs = 3_000, pollMs = 25): Promise<void> {
  if (seq === undefined) return;
  const deadline = Date.now() + maxWaitMs;
  while ((await lastApplied(runId)) < seq && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Validates a query's payload against its schema; a miss is `validation_failed` naming each field. */
export function parseQuery<S extends Record<string, z.ZodType>, Op extends keyof S & string>(schemas: S, op: Op, payload: unknown): z.output<S[Op]> {
  const parsed = schemas[op].safeParse(payload);
  if (parsed.success) return parsed.data as z.output<S[Op]>;
  const issues = parsed.error.issues.map((i) => ({ field: i.path.join('.') || '(body)', message: i.message }));
  throw new SpindleError('validation_failed', `${op}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`, { issues });
}
