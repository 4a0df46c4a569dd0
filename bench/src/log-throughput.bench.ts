import { performance } from 'node:perf_hooks';
import { AckPolicy, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import type { Bus } from '@spindle/bus';
import { chainOfFunctions, type GatewayClient } from './gateway-client';
import { poolMap } from './stats';

export interface ThroughputResult {
  runs: number;
  eventsPerRun: number;
  spindleEventsPerSec: number;
  rawEventsPerSec: number;
  eventBytes: number;
}

/**
 * Events per second through the whole path — gateway start, runner appends to JetStream, recorder
 * projects into Postgres — for `runs` runs of an `nodes`-node function chain, next to raw
 * JetStream publish+consume of the same number of same-sized messages.
 */
export async function measureLogThroughput(bus: Bus, client: GatewayClient, runs = 200, nodes = 50): Promise<ThroughputResult> {
  const workflow = `bench-chain-${nodes}`;
  await client.putWorkflow(workflow, chainOfFunctions(nodes));
  // Warm-up run; also gives the event size.
  const sample = await client.waitTerminal(await client.startRun(workflow));
  const eventBytes = Math.round(sample.reduce((n, e) => n + JSON.stringify(e).length, 0) / sample.length);
  const eventsPerRun = sample.length;

  const started = performance.now();
  await poolMap(Array.from({ length: runs }), 32, () => client.startRun(workflow));
  while ((await client.countRuns(workflow, 'completed')) < runs + 1) await new Promise((r) => setTimeout(r, 100));
  const seconds = (performance.now() - started) / 1000;

  return {
    runs,
    eventsPerRun,
    eventBytes,
    spindleEventsPerSec: (runs * eventsPerRun) / seconds,
    rawEventsPerSec: await rawJetStream(bus, runs * eventsPerRun, eventBytes),
  };
}

/** Publish (100 in flight, acked) while a durable pull consumer fetches and acks each message. */
async function rawJetStream(bus: Bus, count: number, bytes: number): Promise<number> {
  const stream = `${bus.names.eventsStream}_RAW`;
  const subject = `${bus.names.namespace}.rawbench.x`;
  await bus.jsm.streams.add({ name: stream, subjects: [subject], storage: StorageType.File, retention: RetentionPolicy.Limits });
  await bus.jsm.consumers.add(stream, { durable_name: 'raw', ack_policy: AckPolicy.Explicit });
  const consumer = await bus.js.consumers.get(stream, 'raw');
  const payload = new Uint8Array(bytes).fill(120);
  const started = performance.now();
  const consuming = (async () => {
    let seen = 0;
    while (seen < count) {
      const batch = await consumer.fetch({ max_messages: 500, expires: 1_000 });
      for await (const m of batch) {
        m.ack();
        seen++;
      }
    }
  })();
  let next = 0;
  await Promise.all(
    Array.from({ length: 100 }, async () => {
      while (next < count) {
        next++;
        await bus.js.publish(subject, payload);
      }
    }),
  );
  await consuming;
  const rate = count / ((performance.now() - started) / 1000);
  await bus.jsm.streams.delete(stream);
  return rate;
}
