import { Test, type TestingModule } from '@nestjs/testing';
import { EMPTY_LOG, provisionStreams, readRunLog, RunLogWriter, type Bus } from '@spindle/bus';
import type { Actor, RunEvent, RunEventDraft } from '@spindle/contracts';
import { approvalMigrations, type ApprovalTables } from '@spindle/db';
import { ProjectionRunner } from '@spindle/projection-kit';
import { parseServiceConfig } from '@spindle/service-kit';
import { createLogger } from '@spindle/telemetry';
import { eventually as retryUntil, messagesOf, openTestSchema, testBus as sharedTestBus, testEnv } from '@spindle/testing';

export { removeStreams } from '@spindle/testing';
import type { Kysely } from 'kysely';
import { ApprovalModule } from './app.module';
import { RequestsProjection } from './requests.projection';

const root = { spanId: 'root', path: 'root' };
const ask = { nodeId: 'ask', spanId: 'span-ask', parentSpanId: 'root', path: 'root/ask' };
const tool = { nodeId: 'agent', spanId: 'span-agent', parentSpanId: 'root', path: 'root/agent' };
const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

/** Drafts of the events a human-in-the-loop run writes. */
export const draft = {
  queued: (workflow: string, tenant?: string): RunEventDraft => ({
    type: 'run.queued',
    ...root,
    data: { workflow: { name: workflow, version: 1 }, input: {}, state: {}, definition: {}, ...(tenant && { tenant }) },
  }),
  started: (): RunEventDraft => ({ type: 'run.started', ...root, data: { attempt: 1, worker: 'w1' } }),
  resumed: (): RunEventDraft => ({ type: 'run.resumed', ...root, data: { reason: 'answered', attempt: 1, worker: 'w1' } }),
  askNode: (): RunEventDraft => ({ type: 'node.started', ...ask, data: { nodeType: 'human', input: {} } }),
  inputRequested: (requestId: string, opts: { expiresAt?: string; prompt?: string } = {}): RunEventDraft => ({
    type: 'input.requested',
    ...ask,
    data: {
      requestId,
      prompt: opts.prompt ?? 'Ship it?',
      form: { kind: 'boolean' },
      mode: 'single',
      ...(opts.expiresAt && { expiresAt: opts.expiresAt }),
    },
  }),
  inputAnswered: (
    requestId: string,
    answer: Record<string, unknown>,
    answeredBy: Actor = { kind: 'user', id: 'ana', name: 'ana' },
  ): RunEventDraft => ({
    type: 'input.answered',
    ...ask,
    data: { requestId, answer, answeredBy },
  }),
  inputTimedOut: (requestId: string): RunEventDraft => ({
    type: 'input.answered',
    ...ask,
    data: { requestId, timedOut: true, answeredBy: { kind: 'system', id: 'timeout', name: 'time-out' } },
  }),
  approvalRequested: (requestId: string, callId = 'call-1', opts: { expiresAt?: string } = {}): RunEventDraft => ({
    type: 'approval.requested',
    ...tool,
    data: {
      requestId,
      prompt: 'Refund 40 EUR?',
      mode: 'single',
      call: { callId, name: 'refund', arguments: { amount: 40 }, argumentsHash: 'h-40' },
      ...(opts.expiresAt && { expiresAt: opts.expiresAt }),
    },
  }),
  approvalResolved: (requestId: string, decision: 'approved' | 'rejected', callId = 'call-1', message?: string): RunEventDraft => ({
    type: 'approval.resolved',
    ...tool,
    data: {
      requestId,
      decision,
      callId,
      name: 'refund',
      argumentsHash: 'h-40',
      answeredBy: { kind: 'user', id: 'bo', name: 'bo' },
      ...(message && { message }),
    },
  }),
  awaiting: (reason: 'input' | 'tool_approval' = 'input'): RunEventDraft => ({ type: 'run.awaiting', ...root, data: { reason } }),
  completed: (): RunEventDraft => ({ type: 'run.completed', ...root, data: { output: {}, durationMs: 10, usage } }),
  canceled: (): RunEventDraft => ({ type: 'run.canceled', ...root, data: { reason: 'asked to' } }),
};

/** A clock for `RunLogWriter` that ticks one second per event from `start`. */
export function steppingClock(start: string): () => Date {
  let t = Date.parse(start);
  return () => new Date((t += 1_000));
}

/** Appends the drafts to the run's log (continuing it when it exists); answers the last seq. */
export async function writeLog(bus: Bus, runId: string, drafts: RunEventDraft[], start = '2025-03-01T10:00:00.000Z'): Promise<number> {
  const { position } = await readRunLog(bus, runId);
  const writer = new RunLogWriter(bus, runId, position ?? EMPTY_LOG, { now: steppingClock(start) });
  for (const d of drafts) await writer.write(d);
  return writer.lastSeq;
}

/** The run's log as stored, for feeding a projection directly. */
export async function storedLog(bus: Bus, runId: string): Promise<RunEvent[]> {
  return (await readRunLog(bus, runId)).events;
}

/** A client of the namespace's streams (created if the service has not yet). */
export async function testBus(namespace: string, name: string): Promise<Bus> {
  const bus = await sharedTestBus(namespace, name);
  await provisionStreams(bus);
  return bus;
}

export const quietLogger = createLogger('approval', { level: 'fatal' });

/** A migrated approval schema of its own (`owner` tells two apart in one namespace). */
export function openApprovalSchema(namespace: string, owner = 'approval'): Promise<{ db: Kysely<ApprovalTables>; drop(): Promise<void> }> {
  return openTestSchema<ApprovalTables>(owner, namespace, approvalMigrations, 3);
}

/**
 * The requests projection onto `db` behind the projection kit's runner, fed batches of events as
 * its consumer would be (gaps filled from the real log on `bus`); `apply` answers how many
 * events were folded for the first time.
 */
export function projectionOn(db: Kysely<ApprovalTables>, bus: Bus): { apply(events: readonly RunEvent[]): Promise<number> } {
  const runner = new ProjectionRunner<ApprovalTables>(bus, db, new RequestsProjection('approval'), quietLogger);
  return { apply: async (events) => (await runner.handle(messagesOf(bus, events))).applied };
}

/** Every row of the projection, in a stable order, for comparing two projections. */
export async function allRows(db: Kysely<ApprovalTables>) {
  return {
    runs: await db.selectFrom('runs').selectAll().orderBy('run_id').execute(),
    requests: await db.selectFrom('requests').selectAll().orderBy('request_id').execute(),
    progress: await db.selectFrom('run_progress').selectAll().orderBy('run_id').execute(),
  };
}

export function testConfig(namespace: string) {
  const { natsUrl, databaseUrl } = testEnv();
  return parseServiceConfig(
    { NATS_URL: natsUrl, DATABASE_URL: databaseUrl, SPINDLE_NAMESPACE: namespace, LOG_LEVEL: 'fatal' },
    'approval',
    'APPROVAL_PORT',
    0,
  );
}

/** The whole service (projection, queries, sweeper) in this process, as `main.ts` wires it. */
export async function startApproval(namespace: string, requestSweepMs = 3_600_000): Promise<TestingModule> {
  const app = await Test.createTestingModule({ imports: [ApprovalModule.forRoot(testConfig(namespace), { requestSweepMs })] }).compile();
  await app.init();
  return app;
}

/** Retries `check` until it stops throwing, for effects that land asynchronously (bounded: 200 × 50 ms). */
export function eventually<T>(check: () => Promise<T>, attempts = 200, pauseMs = 50): Promise<T> {
  return retryUntil(check, attempts, pauseMs);
}
