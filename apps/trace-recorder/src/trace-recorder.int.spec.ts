import type { TestingModule } from '@nestjs/testing';
import { EMPTY_LOG, query, RunLogWriter, type Bus } from '@spindle/bus';
import type { RunEventDraft, TraceQueryResults } from '@spindle/contracts';
import { METRICS } from '@spindle/service-kit';
import { metricValue, testNamespace } from '@spindle/testing';
import type { Registry } from 'prom-client';
import {
  capturingLogger,
  completedRun,
  eventually,
  failedRun,
  openTraceSchema,
  queued,
  removeStreams,
  startRecorder,
  steppingClock,
  testBus,
  usage,
} from './trace-test.fixture';

describe('trace recorder (Nest app on NATS and Postgres)', () => {
  const namespace = testNamespace();
  const { logger, lines } = capturingLogger();
  let app: TestingModule;
  let client: Bus;

  beforeAll(async () => {
    app = await startRecorder(namespace, logger);
    client = await testBus(namespace, 'trace-recorder-test-client');
  });
  afterAll(async () => {
    await app?.close();
    await client?.close();
    await removeStreams(namespace);
    await (await openTraceSchema(namespace)).drop();
  });

  const write = async (runId: string, drafts: RunEventDraft[]) => {
    const writer = new RunLogWriter(client, runId, EMPTY_LOG, { now: steppingClock() });
    for (const draft of drafts) await writer.write(draft);
    return writer.lastSeq;
  };
  const ask = <Op extends keyof TraceQueryResults>(op: Op, payload: unknown) => query<TraceQueryResults[Op]>(client, 'trace', op, payload);

  it('projects a completed run and answers getTrace once the asked seq is applied', async () => {
    const lastSeq = await write('run-ok', completedRun('support', usage(30, 12)));
    const { trace } = await ask('getTrace', { runId: 'run-ok', waitForSeq: lastSeq });
    expect(trace).toEqual({
      rollups: { byNode: { reply: { calls: 1, ...usage(30, 12) } }, byBranch: {} },
      scores: [],
      run: {
        runId: 'run-ok',
        workflow: { name: 'support', version: 1 },
        status: 'completed',
        queuedAt: '2025-03-01T10:00:01.000Z',
        startedAt: '2025-03-01T10:00:02.000Z',
        endedAt: '2025-03-01T10:00:07.000Z',
        wallMs: 6_000,
        workingMs: 6_000,
        usage: usage(30, 12),
        error: null,
        lastSeq: 7,
        forkedFrom: null,
        tenant: 'default',
        startedBy: null,
        canceledBy: null,
      },
      spans: [
        {
          spanId: 'root',
          parentSpanId: null,
          nodeId: null,
          path: 'root',
          kind: 'run',
          nodeType: null,
          status: 'completed',
          startedAt: '2025-03-01T10:00:01.000Z',
          endedAt: '2025-03-01T10:00:07.000Z',
          durationMs: 6_000,
          workingMs: 6_000,
          input: { question: 'hi' },
          output: { answer: 'hello' },
          error: null,
          usage: null,
          model: null,
          iteration: null,
          branchId: null,
          startSeq: 1,
          endSeq: 7,
        },
        {
          spanId: 'span-reply',
          parentSpanId: 'root',
          nodeId: 'reply',
          path: 'root/reply',
          kind: 'node',
          nodeType: 'llm',
          status: 'completed',
          startedAt: '2025-03-01T10:00:03.000Z',
          endedAt: '2025-03-01T10:00:06.000Z',
          durationMs: 3_000,
          workingMs: 3_000,
          input: { prompt: 'say hi' },
          output: { answer: 'hello' },
          error: null,
          usage: null,
          model: null,
          iteration: null,
          branchId: null,
          startSeq: 3,
          endSeq: 6,
        },
        {
          spanId: 'span-model',
          parentSpanId: 'span-reply',
          nodeId: 'reply',
          path: 'root/reply',
          kind: 'model',
          nodeType: null,
          status: 'completed',
          startedAt: '2025-03-01T10:00:04.000Z',
          endedAt: '2025-03-01T10:00:05.000Z',
          durationMs: 1_000,
          workingMs: 1_000,
          input: { prompt: 'say hi' },
          output: { text: 'hello' },
          error: null,
          usage: usage(30, 12),
          model: 'offline:echo',
          iteration: null,
          branchId: null,
          startSeq: 4,
          endSeq: 5,
        },
      ],
    });
  });

  it('keeps the files a model call sent on its span, through Postgres: the trace shows their count and media types', async () => {
    const files = [
      { type: 'file' as const, fileId: `file_${'a'.repeat(26)}`, mediaType: 'image/png', bytes: 70, sha256: 'a'.repeat(64) },
      {
        type: 'file' as const,
        fileId: `file_${'b'.repeat(26)}`,
        mediaType: 'application/pdf',
        bytes: 900,
        sha256: 'b'.repeat(64),
        name: 'r.pdf',
      },
    ];
    const drafts = completedRun('looker').map((d) =>
      d.type === 'model.started' ? { ...d, data: { ...d.data, attachments: files } } : d,
    ) as RunEventDraft[];
    const lastSeq = await write('run-files', drafts);
    const { trace } = await ask('getTrace', { runId: 'run-files', waitForSeq: lastSeq });
    const model = trace?.spans.find((span) => span.kind === 'model');
    const attachments = (model?.input as { attachments?: Array<{ mediaType: string }> }).attachments;
    expect(attachments).toEqual(files);
    expect(attachments?.map((f) => f.mediaType)).toEqual(['image/png', 'application/pdf']);
  });

  it('projects a failed run with its error', async () => {
    const lastSeq = await write('run-failed', failedRun());
    const { run } = await ask('getRun', { runId: 'run-failed', waitForSeq: lastSeq });
    expect(run).toMatchObject({
      status: 'failed',
      // Wall time from run.queued (seq 1) to run.failed (seq 5), a second apart each.
      wallMs: 4_000,
      workingMs: 4_000,
      usage: usage(0, 0),
      lastSeq: 5,
      error: { code: 'function_failed', message: 'order 42 not found', nodeId: 'lookup' },
    });
  });

  it('waitForSeq answers once the seq is applied, and after a bounded wait with what there is', async () => {
    await write('run-fresh', [queued('fresh')]);
    expect((await ask('getRun', { runId: 'run-fresh', waitForSeq: 1 })).run).toMatchObject({ status: 'queued', lastSeq: 1 });
    // Seq 2 is never written: the answer still comes, showing what is applied.
    expect((await ask('getRun', { runId: 'run-fresh', waitForSeq: 2 })).run).toMatchObject({ lastSeq: 1 });
    expect(await ask('getTrace', { runId: 'no-such-run' })).toEqual({ trace: null });
  });

  it('dead-letters bad JSON, a non-event and an event the database refuses, and applies the good ones', async () => {
    const subject = client.names.eventSubject('run-bad');
    await client.js.publish(subject, '{"runId": "run-bad", "seq": ');
    await client.js.publish(
      subject,
      JSON.stringify({ runId: 'run-bad', seq: 1, type: 'run.queued', at: 'yesterday', spanId: 'root', path: 'root', data: {} }),
    );
    // Valid JSON and schema, but Postgres text cannot hold a NUL character.
    await client.js.publish(client.names.eventSubject('run-nul'), JSON.stringify({ ...queuedEvent('run-nul'), path: 'ro\u0000ot' }));
    const lastSeq = await write('run-after', completedRun());

    expect((await ask('getRun', { runId: 'run-after', waitForSeq: lastSeq })).run).toMatchObject({ status: 'completed', lastSeq });
    const letters = await eventually(async () => {
      const info = await client.jsm.streams.info(client.names.deadLetterStream);
      expect(info.state.messages).toBe(3);
      const stored = await Promise.all([1, 2, 3].map((seq) => client.jsm.streams.getMessage(client.names.deadLetterStream, { seq })));
      return stored.map((m) => {
        if (!m) throw new Error('dead letter missing');
        return m;
      });
    });
    const reasons = letters.map((m) => [m.header.get('Spindle-Dlq-Subject'), m.header.get('Spindle-Dlq-Reason')]);
    expect(reasons).toEqual(
      expect.arrayContaining([
        [subject, expect.stringMatching(/^invalid JSON: /)],
        [subject, expect.stringMatching(/^not a run event: .*at: /)],
        [client.names.eventSubject('run-nul'), expect.stringMatching(/^rejected by the database: /)],
      ]),
    );
    expect(letters.map((m) => m.subject)).toEqual(Array(3).fill(client.names.deadLetterSubject('trace-recorder')));
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: 'warn', subject, reason: expect.stringMatching(/^invalid JSON: /) }),
        expect.objectContaining({ level: 'warn', subject, reason: expect.stringMatching(/^not a run event: /) }),
      ]),
    );
    expect(await ask('getRun', { runId: 'run-nul' })).toEqual({ run: null });
    // Settled, not waiting to be redelivered after the ack wait.
    await eventually(async () => {
      const consumer = await client.jsm.consumers.info(client.names.eventsStream, client.names.durables.traceRecorder);
      expect(consumer).toMatchObject({ num_pending: 0, num_ack_pending: 0 });
    });

    const metrics = await app.get<Registry>(METRICS).metrics();
    const of = 'projection="trace-recorder"';
    expect(metrics).toContain(`spindle_projection_dead_letters_total{${of},kind="invalid_json",service="trace-recorder"} 1\n`);
    expect(metrics).toContain(`spindle_projection_dead_letters_total{${of},kind="rejected_by_database",service="trace-recorder"} 1\n`);
    expect(metrics).toMatch(/spindle_projection_events_applied_total\{projection="trace-recorder",service="trace-recorder"\} [1-9]\d*\n/);
    // Every applied event's append → commit time is observed; the durable consumer has nothing left to deliver.
    expect(metrics).toMatch(/spindle_projection_apply_lag_seconds_count\{[^}]*projection="trace-recorder"[^}]*\} [1-9]\d*\n/);
    expect(metrics).toContain(`spindle_jetstream_consumer_pending_messages{consumer="trace-recorder",service="trace-recorder"} 0\n`);
  });

  it('counts what the runs did at /metrics as their events are committed, labelled by workflow, model and node type', async () => {
    const scrape = () => app.get<Registry>(METRICS).metrics();
    const tokens = { ...usage(30, 12), cachedInputTokens: 20, reasoningTokens: 5, costUsd: 0.25 };
    const lastSeq = await write('run-metered', completedRun('metered', tokens));
    await write('run-metered-fails', failedRun('metered'));
    await ask('getTrace', { runId: 'run-metered', waitForSeq: lastSeq });
    await eventually(async () => expect(await scrape()).toContain('spindle_runs_ended_total{workflow="metered",status="failed"'));
    const text = await scrape();
    const value = (name: string, labels: Record<string, string>) => metricValue(text, name, labels);
    expect(value('spindle_runs_queued_total', { workflow: 'metered' })).toBe(2);
    expect(value('spindle_runs_ended_total', { workflow: 'metered', status: 'completed', error_code: 'none' })).toBe(1);
    expect(value('spindle_runs_ended_total', { workflow: 'metered', status: 'failed', error_code: 'function_failed' })).toBe(1);
    // The run took 60 ms: one observation of 0.06 s, in the 0.1 s bucket of its workflow and status.
    expect(value('spindle_run_duration_seconds_bucket', { le: '0.1', workflow: 'metered', status: 'completed' })).toBe(1);
    expect(value('spindle_run_duration_seconds_sum', { workflow: 'metered', status: 'completed' })).toBe(0.06);
    expect(value('spindle_node_duration_seconds_count', { node_type: 'function', status: 'failed' })).toBeGreaterThan(0);
    const model = 'offline:echo';
    expect(value('spindle_model_tokens_total', { model, kind: 'cached_input' })).toBe(20);
    expect(value('spindle_model_tokens_total', { model, kind: 'reasoning' })).toBe(5);
    expect(value('spindle_model_cost_usd_total', { model })).toBe(0.25);
    expect(value('spindle_model_calls_total', { model, status: 'completed', error_code: 'none' })).toBeGreaterThan(0);
    expect(text).not.toContain('run-metered');
  });

  it('lists runs through the query API and refuses a bad query naming the field', async () => {
    const { runs, nextCursor } = await ask('listRuns', { tenant: 'default', workflow: 'support', limit: 10 });
    expect(runs.map((r) => r.runId)).toContain('run-ok');
    expect(nextCursor).toBeNull();
    await expect(ask('listRuns', { tenant: 'default', limit: 0 })).rejects.toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('limit'),
    });
    await expect(ask('getTrace', {})).rejects.toMatchObject({ code: 'validation_failed', message: expect.stringContaining('runId') });
  });
});

function queuedEvent(runId: string) {
  return { ...queued('support'), runId, seq: 1, at: '2025-03-01T10:00:00.000Z' };
}
