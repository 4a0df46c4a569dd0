import { Test, type TestingModule } from '@nestjs/testing';
import { runEventSchema, type RunEvent, type RunEventDraft } from '@spindle/contracts';
import { traceMigrations, type TraceTables } from '@spindle/db';
import { LOGGER, parseServiceConfig } from '@spindle/service-kit';
import { createLogger, type Logger } from '@spindle/telemetry';
import { openTestSchema, testEnv } from '@spindle/testing';

export { eventually, removeStreams, testBus } from '@spindle/testing';
import type { Kysely } from 'kysely';
import { AppModule } from './app.module';

export const usage = (inputTokens: number, outputTokens: number) => ({
  inputTokens,
  outputTokens,
  totalTokens: inputTokens + outputTokens,
  costUsd: 0,
});
const root = { spanId: 'root', path: 'root' };

export function queued(workflow: string): RunEventDraft {
  return {
    type: 'run.queued',
    ...root,
    data: { workflow: { name: workflow, version: 1 }, input: { question: 'hi' }, state: {}, definition: {} },
  };
}

/** queued → started → node `reply` with one model call → completed (7 events). */
export function completedRun(workflow = 'support', tokens = usage(3, 2)): RunEventDraft[] {
  const node = { nodeId: 'reply', spanId: 'span-reply', parentSpanId: 'root', path: 'root/reply' };
  const model = { nodeId: 'reply', spanId: 'span-model', parentSpanId: 'span-reply', path: 'root/reply' };
  return [
    queued(workflow),
    { type: 'run.started', ...root, data: { attempt: 1, worker: 'w1' } },
    { type: 'node.started', ...node, data: { nodeType: 'llm', input: { prompt: 'say hi' } } },
    { type: 'model.started', ...model, data: { model: 'offline:echo', prompt: 'say hi', stream: false } },
    { type: 'model.completed', ...model, data: { model: 'offline:echo', text: 'hello', usage: tokens, durationMs: 40 } },
    { type: 'node.completed', ...node, data: { nodeType: 'llm', output: { answer: 'hello' }, durationMs: 50 } },
    { type: 'run.completed', ...root, data: { output: { answer: 'hello' }, durationMs: 60, usage: tokens } },
  ];
}

/** queued → started → node `lookup` fails → run failed (5 events). */
export function failedRun(workflow = 'orders'): RunEventDraft[] {
  const node = { nodeId: 'lookup', spanId: 'span-lookup', parentSpanId: 'root', path: 'root/lookup' };
  const error = { code: 'function_failed' as const, message: 'order 42 not found', nodeId: 'lookup' };
  return [
    queued(workflow),
    { type: 'run.started', ...root, data: { attempt: 1, worker: 'w1' } },
    { type: 'node.started', ...node, data: { nodeType: 'function', input: { order: 42 } } },
    { type: 'node.failed', ...node, data: { nodeType: 'function', error, durationMs: 5 } },
    { type: 'run.failed', ...root, data: { error, durationMs: 7 } },
  ];
}

/** A clock for `RunLogWriter` that ticks one second per event from `start`. */
export function steppingClock(start = '2025-03-01T10:00:00.000Z'): () => Date {
  let t = Date.parse(start);
  return () => new Date((t += 1_000));
}

/** The drafts as stored events: seq from `firstSeq`, `at` one second apart from `start`. */
export function logged(
  runId: string,
  drafts: RunEventDraft[],
  opts: { firstSeq?: number; start?: string } = {},
): Array<{ event: RunEvent; streamSeq: number }> {
  const clock = steppingClock(opts.start);
  return drafts.map((draft, i) => {
    const seq = (opts.firstSeq ?? 1) + i;
    const event = runEventSchema.parse({ ...draft, runId, seq, at: clock().toISOString() }) as RunEvent;
    return { event, streamSeq: seq };
  });
}

/** A migrated trace schema of its own for one test file. */
export function openTraceSchema(namespace: string): Promise<{ db: Kysely<TraceTables>; drop(): Promise<void> }> {
  return openTestSchema<TraceTables>('trace', namespace, traceMigrations);
}

export function testConfig(namespace: string) {
  const { natsUrl, databaseUrl } = testEnv();
  return parseServiceConfig(
    { NATS_URL: natsUrl, DATABASE_URL: databaseUrl, SPINDLE_NAMESPACE: namespace, LOG_LEVEL: 'warn' },
    'trace-recorder',
    'TRACE_RECORDER_PORT',
    0,
  );
}

/** Log lines a test can read back, as parsed JSON objects. */
export function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger('trace-recorder', {
    level: 'warn',
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  return { logger, lines };
}

/** The whole recorder (consumer, queries, metrics) in this process, as `main.ts` wires it. */
export async function startRecorder(namespace: string, logger?: Logger): Promise<TestingModule> {
  const builder = Test.createTestingModule({ imports: [AppModule.forConfig(testConfig(namespace))] });
  if (logger) builder.overrideProvider(LOGGER).useValue(logger);
  const app = await builder.compile();
  await app.init();
  return app;
}
