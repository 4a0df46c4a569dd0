import type { FastifyInstance } from 'fastify';
import { Histogram, type Registry } from 'prom-client';

/**
 * `spindle_http_request_duration_seconds` by method, route template and status class. The route
 * is Fastify's template (`/v1/runs/:runId`), never the URL, and a request no route matched is
 * `unmatched`, so a scan of random paths adds no series. An SSE stream counts when it closes.
 */
export function installHttpMetrics(fastify: FastifyInstance, registry: Registry): void {
  const duration = new Histogram({
    name: 'spindle_http_request_duration_seconds',
    help: 'HTTP requests the gateway answered, by method, route template and status code.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120, 600],
    registers: [registry],
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const method = METHODS.has(request.method) ? request.method : 'OTHER';
    duration.observe({ method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1_000);
    done();
  });
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
