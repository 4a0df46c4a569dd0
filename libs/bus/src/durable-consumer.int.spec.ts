import { testEnv, testNamespace } from '@spindle/testing';
import { connectBus, type Bus } from './bus-connection';
import { pullBatches, type DurableSpec } from './durable-consumer';
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
});
