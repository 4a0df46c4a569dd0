import { headers as natsHeaders } from '@nats-io/transport-node';
import type { RunEventDraft } from '@spindle/contracts';
import { startNatsServer, testEnv, testNamespace, type NatsServerProcess } from '@spindle/testing';
import { connectBus, type Bus } from './bus-connection';
import { deleteStreams, provisionStreams } from './provision-streams';
import { firstEventOf, lastEventOf, readRunLog } from './run-log.reader';
import { EMPTY_LOG, RunLogWriter } from './run-log.writer';

const custom = (n: number): RunEventDraft => ({ type: 'custom', spanId: 'root', path: 'root', data: { n } });
const completed: RunEventDraft = {
  type: 'run.completed',
  spanId: 'root',
  path: 'root',
  data: { output: {}, durationMs: 1, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } },
};

/** Messages on a run's subject that a writer did not put there: what every reader and writer does with them. */
describe('a run log with messages that are not part of it', () => {
  let bus: Bus;
  const publishRaw = (runId: string, body: unknown, msgID?: string) => {
    const h = natsHeaders();
    return bus.js.publish(bus.names.eventSubject(runId), typeof body === 'string' ? body : JSON.stringify(body), {
      headers: h,
      ...(msgID ? { msgID } : {}),
    });
  };
  const forged = (runId: string, seq: number, draft: RunEventDraft) => ({ ...draft, runId, seq, at: new Date().toISOString() });

  beforeAll(async () => {
    bus = await connectBus({ url: testEnv().natsUrl, namespace: testNamespace(), name: 'bus-faults-test' });
    await provisionStreams(bus);
  });
  afterAll(async () => {
    await deleteStreams(bus);
    await bus.close();
  });

  it('reads the good events around garbage, duplicates, gaps and a wrong run id, and the writer appends past them', async () => {
    const w = new RunLogWriter(bus, 'run-noisy', EMPTY_LOG);
    await w.write(custom(1));
    await publishRaw('run-noisy', 'not json at all');
    await publishRaw('run-noisy', { hello: 'world' });
    await w.write(custom(2));
    await publishRaw('run-noisy', forged('run-noisy', 2, custom(666)));
    await publishRaw('run-noisy', forged('run-noisy', 9, custom(9)));
    await publishRaw('run-noisy', forged('other-run', 3, custom(3)));
    // The last message on the subject is garbage too: the writer still owns the run.
    expect(await w.write(custom(3))).toBe(3);
    await publishRaw('run-noisy', '\u0000\u0001');

    const skipped: string[] = [];
    const { events, position } = await readRunLog(bus, 'run-noisy', 0, { onSkip: (s) => skipped.push(s.reason) });
    expect(events.map((e) => [e.seq, e.data])).toEqual([
      [1, { n: 1 }],
      [2, { n: 2 }],
      [3, { n: 3 }],
    ]);
    expect(skipped).toHaveLength(6);
    expect(position?.seq).toBe(3);
    expect((await lastEventOf(bus, 'run-noisy'))?.event.seq).toBe(3);

    // A writer that read this log appends after all of it.
    const next = new RunLogWriter(bus, 'run-noisy', position!);
    expect(await next.write(completed)).toBe(4);
    await publishRaw('run-noisy', forged('run-noisy', 5, custom(5)));
    const after = await readRunLog(bus, 'run-noisy');
    expect(after.events.map((e) => e.type)).toEqual(['custom', 'custom', 'custom', 'run.completed']);
    expect((await lastEventOf(bus, 'run-noisy'))?.event.type).toBe('run.completed');
  });

  it("reads a run's run.queued in one message, and agrees with a full read when the subject holds what no writer wrote", async () => {
    const queued: RunEventDraft = {
      type: 'run.queued',
      spanId: 'root',
      path: 'root',
      data: { workflow: { name: 'w', version: 1 }, input: null, state: {}, definition: {}, tenant: 'acme' },
    };
    await new RunLogWriter(bus, 'run-first', EMPTY_LOG).write(queued);
    expect(await firstEventOf(bus, 'run-first')).toMatchObject({ seq: 1, type: 'run.queued', data: { tenant: 'acme' } });
    expect(await firstEventOf(bus, 'run-nobody')).toBeUndefined();

    // Garbage first, then a run.queued without a writer's headers: settled as the reader settles it.
    await publishRaw('run-odd', 'garbage');
    await publishRaw('run-odd', forged('run-odd', 1, queued));
    const { events } = await readRunLog(bus, 'run-odd');
    expect(events[0]).toMatchObject({ seq: 1, type: 'run.queued' });
    expect(await firstEventOf(bus, 'run-odd')).toEqual(events[0]);
  });

  it('gives the run to a valid next event appended by someone else: the writer stops with run_lost', async () => {
    const w = new RunLogWriter(bus, 'run-taken', EMPTY_LOG);
    await w.write(custom(1));
    await publishRaw('run-taken', 'garbage first');
    await publishRaw('run-taken', forged('run-taken', 2, custom(2)));
    await expect(w.write(custom(2))).rejects.toMatchObject({ code: 'run_lost' });
    expect((await readRunLog(bus, 'run-taken')).events.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('never reads a payload that belongs to another event', async () => {
    const w = new RunLogWriter(bus, 'run-payload', EMPTY_LOG, { maxEventBytes: 1_024 });
    await w.write(custom(1));
    await w.write({ type: 'custom', spanId: 'root', path: 'root', data: { big: 'x'.repeat(4_000) } });
    await publishRaw('run-thief', {
      ...forged('run-thief', 1, custom(1)),
      data: { $payload: { bucket: 'any', name: 'run-payload.2', bytes: 1 } },
    });
    const skipped: string[] = [];
    expect((await readRunLog(bus, 'run-thief', 0, { onSkip: (s) => skipped.push(s.reason) })).events).toEqual([]);
    expect(skipped[0]).toMatch(/not its own/);
  });

  it('refuses an event past the run log limit, but always takes the events that close a run', async () => {
    const w = new RunLogWriter(bus, 'run-full', EMPTY_LOG, { maxLogBytes: 2_000 });
    await w.write(custom(1));
    await expect(w.write({ type: 'custom', spanId: 'root', path: 'root', data: { big: 'x'.repeat(3_000) } })).rejects.toMatchObject({
      code: 'run_log_limit_exceeded',
    });
    await w.write({ type: 'custom', spanId: 'root', path: 'root', data: { small: 'x'.repeat(1_000) } });
    await expect(w.write({ type: 'custom', spanId: 'root', path: 'root', data: { small: 'x'.repeat(1_000) } })).rejects.toMatchObject({
      code: 'run_log_limit_exceeded',
    });
    expect(
      await w.write({
        type: 'run.failed',
        spanId: 'root',
        path: 'root',
        data: { error: { code: 'run_log_limit_exceeded', message: 'full' }, durationMs: 1 },
      }),
    ).toBe(3);
    const { position } = await readRunLog(bus, 'run-full');
    expect(position?.bytes).toBe(w.bytes);
  });
});

describe('a run log writer across a NATS restart', () => {
  let nats: NatsServerProcess;
  let bus: Bus;

  beforeAll(async () => {
    nats = await startNatsServer();
    bus = await connectBus({ url: nats.url, name: 'restart-test' });
    await provisionStreams(bus);
  });
  afterAll(async () => {
    await bus.close();
    await nats.stop();
  });

  it('keeps retrying an append while NATS is down and lands it once, when it is back', async () => {
    const w = new RunLogWriter(bus, 'run-blip', EMPTY_LOG, { attemptTimeoutMs: 500 });
    await w.write(custom(1));
    await nats.kill();
    const pending = w.write(custom(2));
    await new Promise((r) => setTimeout(r, 1_500));
    await nats.start();
    expect(await pending).toBe(2);
    expect(await w.write(custom(3))).toBe(3);
    expect((await readRunLog(bus, 'run-blip')).events.map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('recognises its own append when the ack was lost, and never writes it twice', async () => {
    // An attempt timeout far below a round trip: acks arrive after the attempt gave up, so the retry meets its own message.
    const w = new RunLogWriter(bus, 'run-lost-ack', EMPTY_LOG, { attemptTimeoutMs: 1 });
    for (let n = 1; n <= 20; n++) expect(await w.write(custom(n))).toBe(n);
    const { events } = await readRunLog(bus, 'run-lost-ack');
    expect(events.map((e) => e.data)).toEqual(Array.from({ length: 20 }, (_, i) => ({ n: i + 1 })));
    const info = await bus.jsm.streams.info(bus.names.eventsStream, { subjects_filter: bus.names.eventSubject('run-lost-ack') });
    expect(info.state.subjects?.[bus.names.eventSubject('run-lost-ack')]).toBe(20);
  });

  it('gives up with bus_unavailable once NATS has been away longer than it may wait', async () => {
    const w = new RunLogWriter(bus, 'run-gone', EMPTY_LOG, { retryForMs: 800, attemptTimeoutMs: 200 });
    await w.write(custom(1));
    await nats.kill();
    await expect(w.write(custom(2))).rejects.toMatchObject({ code: 'bus_unavailable' });
    await nats.start();
  });
});
