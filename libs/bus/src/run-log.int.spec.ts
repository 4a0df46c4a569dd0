import { eventually, testEnv, testNamespace } from '@spindle/testing';
import type { RunEventDraft } from '@spindle/contracts';
import { connectBus, type Bus } from './bus-connection';
import { deleteStreams, provisionStreams } from './provision-streams';
import { followRunLog, lastEventOf, readRunLog } from './run-log.reader';
import { EMPTY_LOG, RunLogWriter } from './run-log.writer';

const custom = (n: number): RunEventDraft => ({ type: 'custom', spanId: 'root-span', path: 'root', data: { n } });

describe('run log on JetStream', () => {
  let bus: Bus;
  beforeAll(async () => {
    bus = await connectBus({ url: testEnv().natsUrl, namespace: testNamespace(), name: 'bus-int-test' });
    await provisionStreams(bus);
    await provisionStreams(bus); // idempotent
  });
  afterAll(async () => {
    await deleteStreams(bus);
    await bus.close();
  });

  it('appends gapless seqs and refuses a second writer at the same position', async () => {
    const a = new RunLogWriter(bus, 'run-a', EMPTY_LOG);
    expect(await a.write(custom(1))).toBe(1);
    expect(await a.write(custom(2))).toBe(2);

    const stale = new RunLogWriter(bus, 'run-a', EMPTY_LOG);
    await expect(stale.write(custom(99))).rejects.toMatchObject({ code: 'run_lost' });

    const last = await lastEventOf(bus, 'run-a');
    const resumed = new RunLogWriter(bus, 'run-a', last!.position);
    expect(await resumed.write(custom(3))).toBe(3);
    await expect(a.write(custom(3))).rejects.toMatchObject({ code: 'run_lost' });

    const { events } = await readRunLog(bus, 'run-a');
    expect(events.map((e) => [e.seq, e.data])).toEqual([
      [1, { n: 1 }],
      [2, { n: 2 }],
      [3, { n: 3 }],
    ]);
    expect((await readRunLog(bus, 'run-a', 2)).events.map((e) => e.seq)).toEqual([3]);
    expect(await lastEventOf(bus, 'no-such-run')).toBeUndefined();
  });

  it('follows history then live with nothing lost or repeated, ending at a terminal event', async () => {
    const w = new RunLogWriter(bus, 'run-b', EMPTY_LOG);
    for (let i = 1; i <= 5; i++) await w.write(custom(i));
    const follower = followRunLog(bus, 'run-b', 2, { untilTerminal: true });
    const seen: number[] = [];
    const reading = (async () => {
      for await (const { event } of follower) seen.push(event.seq);
    })();
    for (let i = 6; i <= 20; i++) await w.write(custom(i));
    await w.write({
      type: 'run.completed',
      spanId: 'root-span',
      path: 'root',
      data: { output: {}, durationMs: 1, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } },
    });
    await reading;
    expect(seen).toEqual(Array.from({ length: 19 }, (_, i) => i + 3));
  });

  it('keeps an event over the size limit in the object store and gives it back whole to every reader', async () => {
    const big = 'x'.repeat(300 * 1024);
    const w = new RunLogWriter(bus, 'run-big', EMPTY_LOG);
    await w.write(custom(1));
    await w.write({ type: 'custom', spanId: 'root-span', path: 'root', data: { big } });
    const stored = await bus.jsm.streams.getMessage(bus.names.eventsStream, { last_by_subj: bus.names.eventSubject('run-big') });
    expect(stored!.data.length).toBeLessThan(2_000);
    expect(JSON.parse(Buffer.from(stored!.data).toString()).data).toMatchObject({ $payload: { name: 'run-big.2' } });
    const { events } = await readRunLog(bus, 'run-big');
    expect(events[1].data).toEqual({ big });
    expect((await lastEventOf(bus, 'run-big'))?.event.data).toEqual({ big });
  });

  it('leaves no consumer on the server behind a read or a stopped follower', async () => {
    const w = new RunLogWriter(bus, 'run-readers', EMPTY_LOG);
    for (let i = 1; i <= 3; i++) await w.write(custom(i));
    const jsm = await bus.js.jetstreamManager();
    const consumers = async () => (await jsm.streams.info(bus.names.eventsStream)).state.consumer_count;
    const before = await consumers();
    // A thousand SSE clients each read the history: every read must take its consumer with it.
    for (let i = 0; i < 20; i++) expect((await readRunLog(bus, 'run-readers')).events).toHaveLength(3);
    const follower = followRunLog(bus, 'run-readers', 0);
    for await (const { event } of follower) if (event.seq === 3) break;
    await eventually(async () => expect(await consumers()).toBe(before));
  });
});
