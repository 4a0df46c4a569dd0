import { Test, type TestingModule } from '@nestjs/testing';
import { EMPTY_LOG, RunLogWriter, type Bus } from '@spindle/bus';
import type { RunEventDraft } from '@spindle/contracts';
import { checkpointMigrations, type CheckpointTables } from '@spindle/db';
import { LOGGER, parseServiceConfig } from '@spindle/service-kit';
import { createLogger, type Logger } from '@spindle/telemetry';
import { eventually, openTestSchema, testEnv } from '@spindle/testing';

export { eventually, removeStreams, testBus } from '@spindle/testing';
import type { Kysely } from 'kysely';
import { CheckpointModule } from './app.module';
import type { CheckpointSettings } from './checkpoint-settings';

export const HOUR_MS = 3_600_000;
const root = { spanId: 'root', path: 'root' };

export function queued(): RunEventDraft {
  return {
    type: 'run.queued',
    ...root,
    data: { workflow: { name: 'research', version: 1 }, input: { topic: 'tides' }, state: {}, definition: {} },
  };
}

export function started(): RunEventDraft {
  return { type: 'run.started', ...root, data: { attempt: 1, worker: 'w1' } };
}

export function nodeStarted(nodeId: string): RunEventDraft {
  return {
    type: 'node.started',
    nodeId,
    spanId: `span-${nodeId}`,
    parentSpanId: 'root',
    path: `root/${nodeId}`,
    data: { nodeType: 'function', input: {} },
  };
}

/** A node's completion; with `cacheKey` it is a `checkpoint: true` node whose result is kept. */
export function nodeCompleted(
  nodeId: string,
  output: Record<string, unknown>,
  cache: { cacheKey?: string; handle?: string } = {},
): RunEventDraft {
  return {
    type: 'node.completed',
    nodeId,
    spanId: `span-${nodeId}`,
    parentSpanId: 'root',
    path: `root/${nodeId}`,
    data: { nodeType: 'function', output, durationMs: 3, ...cache },
  };
}

/** A checkpoint recording what its step changed (as runners write them). */
export function checkpointSaved(checkpointId: string, step: number, changes: Record<string, unknown>, frontier: string[]): RunEventDraft {
  return { type: 'checkpoint.saved', ...root, data: { checkpointId, step, changes, frontier, graphHash: 'g1' } };
}

/** A checkpoint holding the whole state, as logs written before checkpoints kept changes. */
export function legacyCheckpointSaved(
  checkpointId: string,
  step: number,
  state: Record<string, unknown>,
  frontier: string[],
): RunEventDraft {
  return { type: 'checkpoint.saved', ...root, data: { checkpointId, step, state, frontier, graphHash: 'g1' } };
}

/** Appends drafts to a run's log, continuing from `writer` when given; answers the writer. */
export async function writeRun(
  bus: Bus,
  runId: string,
  drafts: RunEventDraft[],
  opts: { writer?: RunLogWriter; now?: () => Date } = {},
): Promise<RunLogWriter> {
  const writer = opts.writer ?? new RunLogWriter(bus, runId, EMPTY_LOG, { now: opts.now });
  for (const draft of drafts) await writer.write(draft);
  return writer;
}

export function testConfig(namespace: string) {
  const { natsUrl, databaseUrl } = testEnv();
  return parseServiceConfig(
    { NATS_URL: natsUrl, DATABASE_URL: databaseUrl, SPINDLE_NAMESPACE: namespace, LOG_LEVEL: 'warn' },
    'checkpoint',
    'CHECKPOINT_PORT',
    0,
  );
}

/** The whole service (projection, queries, purge timer) in this process, as `main.ts` wires it. */
export async function startCheckpointService(
  namespace: string,
  opts: { settings?: CheckpointSettings; logger?: Logger } = {},
): Promise<TestingModule> {
  const builder = Test.createTestingModule({
    imports: [CheckpointModule.forRoot(testConfig(namespace), opts.settings ?? { ttlHours: 168 })],
  });
  if (opts.logger) builder.overrideProvider(LOGGER).useValue(opts.logger);
  const app = await builder.compile();
  await app.init();
  return app;
}

/** A migrated checkpoint schema of the namespace, opened beside (or before) the service. */
export function openCheckpointSchema(namespace: string): Promise<{ db: Kysely<CheckpointTables>; drop(): Promise<void> }> {
  return openTestSchema<CheckpointTables>('checkpoint', namespace, checkpointMigrations);
}

/** Every projected row, in a stable order, for comparing two projections. */
export async function allRows(db: Kysely<CheckpointTables>) {
  return {
    checkpoints: await db.selectFrom('checkpoints').selectAll().orderBy('run_id').orderBy('seq').execute(),
    initialStates: await db.selectFrom('initial_states').selectAll().orderBy('run_id').execute(),
    nodeResults: await db.selectFrom('node_results').selectAll().orderBy('key').execute(),
    progress: await db.selectFrom('run_progress').selectAll().orderBy('run_id').execute(),
  };
}

/** Waits until the projection has applied the run's log up to `seq`. */
export async function appliedUpTo(db: Kysely<CheckpointTables>, runId: string, seq: number): Promise<void> {
  await eventually(async () => {
    const row = await db.selectFrom('run_progress').select('last_seq').where('run_id', '=', runId).executeTakeFirst();
    if (row?.last_seq !== seq) throw new Error(`run ${runId} is applied up to seq ${row?.last_seq ?? 0}, not ${seq}`);
  });
}

/** Log lines a test can read back, as parsed JSON objects. */
export function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger('checkpoint', { level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  return { logger, lines };
}
