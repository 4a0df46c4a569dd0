import { Gauge, type Registry } from 'prom-client';
import { oncePerScrape } from './once-per-scrape';

export interface WaitingGaugesSpec<L extends string> {
  /** Gauge of how many wait, and gauge of how long the oldest has waited (seconds). */
  count: { name: string; help: string };
  oldestAge: { name: string; help: string };
  /** The label and every value it takes: a value with nothing waiting shows 0, not a stale figure. */
  label: string;
  values: readonly L[];
  /** What waits now, per label value; read once per scrape. */
  read: () => Promise<ReadonlyMap<L, { count: number; oldest: Date }>>;
  now?: () => number;
}

/**
 * A queue's two figures at `/metrics`, read from its store when scraped: how many items wait
 * (per label value) and how long the oldest of them has waited. Both gauges come from one read.
 */
export function registerWaitingGauges<L extends string>(registry: Registry, spec: WaitingGaugesSpec<L>): void {
  const now = spec.now ?? Date.now;
  const read = oncePerScrape(spec.read);
  new Gauge({
    ...spec.count,
    labelNames: [spec.label],
    registers: [registry],
    async collect() {
      const waiting = await read();
      for (const value of spec.values) this.set({ [spec.label]: value }, waiting.get(value)?.count ?? 0);
    },
  });
  new Gauge({
    ...spec.oldestAge,
    labelNames: [spec.label],
    registers: [registry],
    async collect() {
      const waiting = await read();
      for (const value of spec.values) {
        const oldest = waiting.get(value)?.oldest;
        this.set({ [spec.label]: value }, oldest ? Math.max(0, (now() - oldest.getTime()) / 1_000) : 0);
      }
    },
  });
}
