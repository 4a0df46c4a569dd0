import { oncePerScrape } from '@spindle/telemetry';
import { Gauge, type Registry } from 'prom-client';
import type { Bus } from './bus-connection';
import { durableBacklog, type DurableSpec } from './durable-consumer';

type Watched = { bus: Bus; spec: Pick<DurableSpec, 'stream' | 'durable'> };
const perRegistry = new WeakMap<Registry, Map<string, Watched>>();

/**
 * Shows a durable consumer's lag at the service's `/metrics`, read from JetStream when scraped:
 * messages not yet delivered, and delivered but not yet acknowledged. One pair of gauges per
 * registry, labelled by consumer (the role, not the namespaced durable name), however many
 * consumers the process reads with.
 */
export function watchConsumerLag(registry: Registry, consumer: string, bus: Bus, spec: Pick<DurableSpec, 'stream' | 'durable'>): void {
  let watched = perRegistry.get(registry);
  if (!watched) {
    const consumers = (watched = new Map());
    perRegistry.set(registry, watched);
    // One read of each consumer serves both gauges; a scrape while NATS is away leaves them without a value.
    const read = oncePerScrape(() =>
      Promise.all([...consumers].map(async ([name, w]) => [name, await durableBacklog(w.bus, w.spec).catch(() => undefined)] as const)),
    );
    new Gauge({
      name: 'spindle_jetstream_consumer_pending_messages',
      help: "Messages of the consumer's stream not yet delivered to it (its backlog).",
      labelNames: ['consumer'],
      registers: [registry],
      async collect() {
        for (const [consumer, lag] of await read()) if (lag) this.set({ consumer }, lag.pending);
      },
    });
    new Gauge({
      name: 'spindle_jetstream_consumer_ack_pending_messages',
      help: 'Messages delivered to the consumer and not yet acknowledged (being worked on, or stuck).',
      labelNames: ['consumer'],
      registers: [registry],
      async collect() {
        for (const [consumer, lag] of await read()) if (lag) this.set({ consumer }, lag.ackPending);
      },
    });
  }
  watched.set(consumer, { bus, spec });
}

/**
 * What the log takes on JetStream and what it may take, read when scraped: bytes and messages
 * per stream, and the account's storage used against its limit (when it has one). Retention is
 * by age only, so the stream never refuses an append for room: these are what capacity is
 * planned and alarmed on (docs/operations.md).
 */
export function watchJetStreamCapacity(registry: Registry, bus: Bus): void {
  const streams = [bus.names.eventsStream, bus.names.commandsStream, bus.names.deadLetterStream];
  const account = oncePerScrape(() => bus.jsm.getAccountInfo().catch(() => undefined));
  new Gauge({
    name: 'spindle_jetstream_stream_bytes',
    help: 'Bytes a Spindle stream holds.',
    labelNames: ['stream'],
    registers: [registry],
    async collect() {
      for (const stream of streams) {
        const info = await bus.jsm.streams.info(stream).catch(() => undefined);
        if (info) this.set({ stream: roleOf(stream, bus) }, info.state.bytes);
      }
    },
  });
  new Gauge({
    name: 'spindle_jetstream_storage_used_bytes',
    help: "File storage the account's JetStream streams use.",
    registers: [registry],
    async collect() {
      const info = await account();
      if (info) this.set(info.storage);
    },
  });
  new Gauge({
    name: 'spindle_jetstream_storage_limit_bytes',
    help: "The account's JetStream file storage limit (absent when the account has none: the server's disk is the limit).",
    registers: [registry],
    async collect() {
      const info = await account();
      if (info && info.limits.max_storage > 0) this.set(info.limits.max_storage);
    },
  });
}

/** `RUN_EVENTS` whatever the namespace: labels name the stream's role. */
function roleOf(stream: string, bus: Bus): string {
  const prefix = bus.names.namespace ? `${bus.names.namespace.toUpperCase()}_` : '';
  return stream.startsWith(prefix) ? stream.slice(prefix.length) : stream;
}
