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
    const read = async () => {
      // A scrape while NATS is away leaves the gauges without a value rather than failing the page.
      const entries = await Promise.all(
        [...consumers].map(async ([name, w]) => [name, await durableBacklog(w.bus, w.spec).catch(() => undefined)] as const),
      );
      return entries;
    };
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
