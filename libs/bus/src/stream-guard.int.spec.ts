import { testEnv, testNamespace } from '@spindle/testing';
import { Registry } from 'prom-client';
import { connectBus, type Bus } from './bus-connection';
import { deleteStreams, provisionStreams } from './provision-streams';
import { StreamGuard } from './stream-guard';

describe('StreamGuard', () => {
  let bus: Bus;
  const provisioning = { replicas: 1, duplicateWindowMs: 60_000, retentionMs: 3_600_000 };
  beforeAll(async () => {
    bus = await connectBus({ url: testEnv().natsUrl, namespace: testNamespace(), name: 'stream-guard-test' });
    await provisionStreams(bus, provisioning);
  });
  afterAll(async () => {
    await deleteStreams(bus);
    await bus.close();
  });

  it('finds nothing to do while every stream is there', async () => {
    const guard = new StreamGuard(bus, provisioning);
    expect(await guard.check()).toEqual([]);
  });

  it('makes lost streams again with their limits, counts them, tells, and moves the log start', async () => {
    const metrics = new Registry();
    const told: string[][] = [];
    const guard = new StreamGuard(bus, provisioning, { metrics, onRecreated: (s) => told.push(s) });
    const before = await guard.eventsStreamCreated();
    await bus.jsm.streams.delete(bus.names.eventsStream);
    await bus.jsm.streams.delete(bus.names.deadLetterStream);

    const [first, second] = await Promise.all([guard.check(), guard.check()]);
    expect(first).toEqual([bus.names.eventsStream, bus.names.deadLetterStream]);
    expect(second).toBe(first); // concurrent checks share one
    expect(told).toEqual([first]);
    const events = await bus.jsm.streams.info(bus.names.eventsStream);
    expect(events.config.max_age).toBe(3_600_000 * 1_000_000);
    expect(events.config.subjects).toEqual([bus.names.eventsWildcard]);
    expect(await guard.eventsStreamCreated()).toBeGreaterThanOrEqual(before);
    expect(Date.parse(events.created)).toBe(await guard.eventsStreamCreated());
    const counted = await metrics.getSingleMetric('spindle_jetstream_streams_recreated_total')!.get();
    expect(counted.values.map((v) => [v.labels.stream, v.value])).toEqual([
      [bus.names.eventsStream, 1],
      [bus.names.deadLetterStream, 1],
    ]);
    expect(await guard.check()).toEqual([]);
  });
});
