import { collectDefaultMetrics, Registry } from 'prom-client';

export const METRICS_PREFIX = 'spindle_';

/**
 * A fresh Registry (not prom-client's global one) so tests and multiple app
 * instances in one process never hit "metric already registered". Every series
 * carries `service`. Services register their own counters on the returned registry
 * (`new Counter({ name: 'spindle_…', registers: [registry], … })`).
 */
export function createMetrics(serviceName: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service: serviceName });
  collectDefaultMetrics({ register: registry, prefix: METRICS_PREFIX });
  return registry;
}

export interface RenderedMetrics {
  contentType: string;
  body: string;
}

/** Body and Content-Type for a `GET /metrics` handler. */
export async function renderMetrics(registry: Registry): Promise<RenderedMetrics> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
