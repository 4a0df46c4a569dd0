import type { RunEvent, RunEventDraft } from '@spindle/contracts';
import { testEnv, testNamespace } from '@spindle/testing';
import fc from 'fast-check';
import { connectBus, type Bus } from './bus-connection';
import { deleteStreams, provisionStreams } from './provision-streams';
import { followRunLog, lastEventOf, readRunLog } from './run-log.reader';
import { EMPTY_LOG, RunLogWriter } from './run-log.writer';

const custom = (n: number, pad = 0): RunEventDraft => ({
  type: 'custom',
  spanId: 'root-span',
  path: 'root',
  data: pad ? { n, pad: 'x'.repeat(pad) } : { n },
});
const shape = (events: readonly RunEvent[]) => events.map((e) => [e.seq, e.type, e.data]);

describe('run log group commit on JetStream', () => {
  let bus: Bus;
  let runs = 0;
  beforeAll(async () => {
    bus = await connectBus({ url: testEnv().natsUrl, namespace: testNamespace(), name: 'bus-batch-test' });
    await provisionStreams(bus);
  });
  afterAll(async () => {
    await deleteStreams(bus);
    await bus.close();
  });

  const messagesOn = async (runId: string) => {
    const subject = bus.names.eventSubject(runId);
    const info = await bus.jsm.streams.info(bus.names.eventsStream, { subjects_filter: subject });
    return info.state.subjects?.[subject] ?? 0;
  };

  it('stores the events appended while a write is in flight as one message, and readers see each event', async () => {
    const w = new RunLogWriter(bus, 'run-batched', EMPTY_LOG);
    const seqs: number[] = [];
    for (let n = 1; n <= 50; n++) seqs.push(await w.append(custom(n)));
    expect(seqs).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(w.storedSeq).toBeLessThan(50);
    await w.durable();
    expect(w.storedSeq).toBe(50);

    const messages = await messagesOn('run-batched');
    expect(messages).toBeLessThan(50);
    const { events, position } = await readRunLog(bus, 'run-batched');
    expect(shape(events)).toEqual(Array.from({ length: 50 }, (_, i) => [i + 1, 'custom', { n: i + 1 }]));
    expect(position).toMatchObject({ seq: 50, messages });
    // The last message alone tells where the log ends: the writer counted the subject's messages.
    await expect(lastEventOf(bus, 'run-batched')).resolves.toMatchObject({ event: { seq: 50 }, position: { seq: 50, messages } });

    // A writer that continues the log from a reader's position keeps batching after it.
    const next = new RunLogWriter(bus, 'run-batched', position!);
    await next.append(custom(51));
    expect(await next.write(custom(52))).toBe(52);
    await expect(lastEventOf(bus, 'run-batched')).resolves.toMatchObject({ event: { seq: 52 } });
  });

  it('writes one message per event when batches are limited to one event', async () => {
    const w = new RunLogWriter(bus, 'run-single', EMPTY_LOG, { maxBatchEvents: 1 });
    for (let n = 1; n <= 10; n++) await w.append(custom(n));
    await w.durable();
    expect(await messagesOn('run-single')).toBe(10);
    expect(shape((await readRunLog(bus, 'run-single')).events).map(([seq]) => seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('keeps a batch under the server message size and a large payload in the object store', async () => {
    const w = new RunLogWriter(bus, 'run-large', EMPTY_LOG);
    // Twelve events of 200 KiB cannot share one 1 MiB message; one of 400 KiB keeps its data in the object store.
    for (let n = 1; n <= 12; n++) await w.append(custom(n, 200 * 1024));
    await w.append(custom(13, 400 * 1024));
    await w.durable();
    const maxPayload = bus.nc.info!.max_payload;
    const sizes: number[] = [];
    const raw = await bus.js.consumers.get(bus.names.eventsStream, { filter_subjects: bus.names.eventSubject('run-large') });
    const fetched = await raw.fetch({ max_messages: 100, expires: 2_000 });
    for await (const m of fetched) {
      sizes.push(m.data.byteLength);
      if (m.info.pending === 0) break;
    }
    expect(sizes.length).toBeGreaterThan(2);
    expect(Math.max(...sizes)).toBeLessThan(maxPayload);
    const { events } = await readRunLog(bus, 'run-large');
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
    expect((events[12]!.data as { pad: string }).pad).toHaveLength(400 * 1024);
  });

  it('breaks on a lost race: the failure reaches durable() and every later append, and nothing after it is stored', async () => {
    const w = new RunLogWriter(bus, 'run-raced-batch', EMPTY_LOG);
    await w.write(custom(1));
    await new RunLogWriter(bus, 'run-raced-batch', (await lastEventOf(bus, 'run-raced-batch'))!.position).write(custom(2));
    await w.append(custom(20));
    await w.append(custom(21));
    await expect(w.durable()).rejects.toMatchObject({ code: 'run_lost' });
    await expect(w.append(custom(22))).rejects.toMatchObject({ code: 'run_lost' });
    expect(shape((await readRunLog(bus, 'run-raced-batch')).events)).toEqual([
      [1, 'custom', { n: 1 }],
      [2, 'custom', { n: 2 }],
    ]);
  });

  it('gives readers the same events whether the log was written in batches or one by one', async () => {
    const plan = fc.record({
      sizes: fc.array(fc.integer({ min: 0, max: 3_000 }), { minLength: 1, maxLength: 40 }),
      barriers: fc.array(fc.boolean(), { maxLength: 40 }),
      maxBatchEvents: fc.integer({ min: 1, max: 8 }),
    });
    await fc.assert(
      fc.asyncProperty(plan, async ({ sizes, barriers, maxBatchEvents }) => {
        const drafts = sizes.map((pad, i) => custom(i + 1, pad));
        const batched = `run-prop-b${++runs}`;
        const single = `run-prop-s${runs}`;
        const a = new RunLogWriter(bus, batched, EMPTY_LOG, { maxBatchEvents });
        for (const [i, draft] of drafts.entries()) {
          await a.append(draft);
          if (barriers[i]) await a.durable();
        }
        await a.durable();
        const b = new RunLogWriter(bus, single, EMPTY_LOG, { maxBatchEvents: 1 });
        for (const draft of drafts) await b.write(draft);

        const one = await readRunLog(bus, single);
        const other = await readRunLog(bus, batched);
        expect(shape(other.events)).toEqual(shape(one.events));
        expect(other.position?.bytes).toBeGreaterThan(0);
        // A follower joining mid-log (as the live feed does after a history read) sees the rest, each event once.
        const after = Math.floor(drafts.length / 2);
        const followed: RunEvent[] = [];
        const follower = followRunLog(bus, batched, after, { endAtStreamSeq: other.position!.streamSeq });
        for await (const { event } of follower) followed.push(event);
        expect(shape(followed)).toEqual(shape(one.events.slice(after)));
        await expect(lastEventOf(bus, batched)).resolves.toMatchObject({ event: { seq: drafts.length } });
      }),
      { numRuns: 15 },
    );
  });
});
