import { watchConsumerLag, type Bus, type DurableSpec } from '@spindle/bus';
import type { RunEvent } from '@spindle/contracts';
import { Counter, Histogram, type Registry } from 'prom-client';

const perRegistry = new WeakMap<Registry, ProjectionMetrics>();

/**
 * What every projection shows at its service's `/metrics`, labelled by projection: events
 * applied, messages dead-lettered by why, how long an event took from its append to its commit
 * here, and the durable consumer's lag on the events stream (`spindle_jetstream_consumer_*`,
 * read from JetStream when scraped). One set per registry, shared by the projections a process runs.
 */
export class ProjectionMetrics {
  private readonly applied: Counter<'projection'>;
  private readonly deadLetters: Counter<'projection' | 'kind'>;
  private readonly applyLag: Histogram<'projection'>;

  static of(registry: Registry): ProjectionMetrics {
    let metrics = perRegistry.get(registry);
    if (!metrics) perRegistry.set(registry, (metrics = new ProjectionMetrics(registry)));
    return metrics;
  }

  private constructor(private readonly registry: Registry) {
    this.applied = new Counter({
      name: 'spindle_projection_events_applied_total',
      help: 'Run events folded into a projection for the first time (redeliveries not counted).',
      labelNames: ['projection'],
      registers: [registry],
    });
    this.deadLetters = new Counter({
      name: 'spindle_projection_dead_letters_total',
      help: 'Messages of the events stream a projection moved to the dead-letter stream, by why.',
      labelNames: ['projection', 'kind'],
      registers: [registry],
    });
    this.applyLag = new Histogram({
      name: 'spindle_projection_apply_lag_seconds',
      help: "From an event's append (its `at`) to the commit that folded it into the projection.",
      labelNames: ['projection'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    });
  }

  watchConsumer(projection: string, bus: Bus, spec: DurableSpec): void {
    watchConsumerLag(this.registry, projection, bus, spec);
  }

  committed(projection: string, events: readonly RunEvent[], now = Date.now()): void {
    this.applied.inc({ projection }, events.length);
    // The labelled child once per batch: prom-client hashes the labels on every call otherwise (a top frame per event).
    const lag = this.applyLag.labels({ projection });
    for (const event of events) lag.observe(Math.max(0, now - Date.parse(event.at)) / 1_000);
  }

  deadLettered(projection: string, kind: string): void {
    this.deadLetters.inc({ projection, kind });
  }
}
