import { testEnv, testNamespace } from '@spindle/testing';
import { connectBus, type Bus } from './bus-connection';
import { consumeStall, pullBatches, type DurableSpec } from './durable-consumer';
import { deleteStreams, provisionStreams } from './provision-streams';

describe('pullBatches', () => {
  let bus: Bus;
  beforeAll(async () => {
    bus = await connectBus({ url: testEnv().natsUrl, namespace: testNamespace(), name: 'bus-durable-test' });
    await provisionStreams(bus);
  });
  afterAll(async () => {
    await deleteStreams(bus);
    await bus.close();
  });

  it('takes a batch it handed back again from the same consumer, without waiting for the ack wait', async () => {
    for (let i = 0; i < 30; i++) await bus.js.publish(bus.names.eventSubject(`run-${i % 3}`), JSON.stringify({ i }));
    // An ack wait far beyond the test's timeout: a redelivery lost on the way would only come back after it.
    const spec: DurableSpec = {
      stream: bus.names.eventsStream,
      durable: 'hand-back',
      filterSubject: bus.names.eventsWildcard,
      ackWaitMs: 600_000,
    };
    const stop = new AbortController();
    const handled = new Map<number, number>();
    const errors: string[] = [];
    let failed = false;
    let done!: () => void;
    const allHandled = new Promise<void>((resolve) => (done = resolve));
    const loop = pullBatches(
      bus,
      spec,
      async (batch) => {
        if (!failed) {
          // What the projection runner does when its store refuses a batch for now (a deadlock).
          failed = true;
          for (const msg of batch) msg.nak();
          throw new Error('deadlock detected');
        }
        for (const msg of batch) {
          handled.set(msg.seq, msg.info.deliveryCount);
          msg.ack();
        }
        if (handled.size === 30) done();
      },
      { signal: stop.signal, onError: (e) => errors.push((e as Error).message) },
    );
    await allHandled;
    stop.abort();
    await loop;
    expect(errors).toEqual(['deadlock detected']);
    expect([...handled.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    // The first batch was handed back and delivered again; nothing was handled twice.
    expect([...handled.values()].some((count) => count > 1)).toBe(true);
  });

  it('pulls again when a batch stays open with nothing more coming, so every message is handled', async () => {
    for (let i = 0; i < 8; i++) await bus.js.publish(bus.names.eventSubject('stalled'), JSON.stringify({ i }));
    // The server sends 3 and waits for their acks; the batch (pending > 0, not full) never closed by itself.
    const spec: DurableSpec = {
      stream: bus.names.eventsStream,
      durable: 'stalled',
      filterSubject: bus.names.eventSubject('stalled'),
      ackWaitMs: 600_000,
      maxAckPending: 3,
    };
    const stop = new AbortController();
    const handled = new Set<number>();
    const stalls: string[] = [];
    let done!: () => void;
    const allHandled = new Promise<void>((resolve) => (done = resolve));
    const loop = pullBatches(
      bus,
      spec,
      async (batch) => {
        for (const msg of batch) {
          handled.add(msg.seq);
          msg.ack();
        }
        if (handled.size === 8) done();
      },
      { signal: stop.signal, stallMs: 500, onError: () => undefined, onStall: (reason) => stalls.push(reason) },
    );
    await allHandled;
    stop.abort();
    await loop;
    expect(handled.size).toBe(8);
    expect(stalls[0]).toMatch(/^a batch of 3 message\(s\) stayed open/);
  });
  it('asks a linger function after each batch that was not full, and lingers what it says', async () => {
    const spec: DurableSpec = {
      stream: bus.names.eventsStream,
      durable: 'linger-asked',
      filterSubject: bus.names.eventSubject('linger'),
      ackWaitMs: 600_000,
    };
    const stop = new AbortController();
    const batches: number[] = [];
    let asked = 0;
    let next!: () => void;
    let handledOne = new Promise<void>((resolve) => (next = resolve));
    const loop = pullBatches(
      bus,
      spec,
      async (batch) => {
        for (const msg of batch) msg.ack();
        batches.push(batch.length);
        next();
      },
      { signal: stop.signal, onError: () => undefined, lingerMs: () => (asked++, 0) },
    );
    for (let i = 0; i < 3; i++) {
      await bus.js.publish(bus.names.eventSubject('linger'), JSON.stringify({ i }));
      await handledOne;
      handledOne = new Promise<void>((resolve) => (next = resolve));
    }
    stop.abort();
    await loop;
    // One message at a time: three batches, none full, each followed by the question (and no wait: 0).
    expect(batches).toEqual([1, 1, 1]);
    expect(asked).toBe(3);
  });
});

describe('consumeStall', () => {
  const quiet = { quietMs: 6_000, handling: false, open: 0 };
  it('says nothing of a consume that is handling, or was busy lately', () => {
    expect(consumeStall({ ...quiet, open: 3, handling: true }, 5_000)).toBeUndefined();
    expect(consumeStall({ ...quiet, open: 3, quietMs: 4_999 }, 5_000)).toBeUndefined();
  });
  it('pulls again for a batch left open, or messages waiting that never came', () => {
    expect(consumeStall({ ...quiet, open: 2 }, 5_000)).toBe('a batch of 2 message(s) stayed open 6000 ms with nothing more coming');
    expect(consumeStall({ ...quiet, numPending: 7 }, 5_000)).toBe('7 message(s) waited 6000 ms on the server and none came');
  });
  it('leaves an idle consume with nothing waiting alone', () => {
    expect(consumeStall({ ...quiet, numPending: 0 }, 5_000)).toBeUndefined();
    expect(consumeStall(quiet, 5_000)).toBeUndefined();
  });
});
