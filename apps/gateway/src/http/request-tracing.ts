import { context, propagation, SpanKind, SpanStatusCode, trace, type Context } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';

const CONTEXT = Symbol('spindle.traceContext');

/**
 * One SERVER span per HTTP request, continuing an incoming `traceparent`. Handlers pass its
 * context on explicitly (into NATS headers), so the request, the start command, the runner's
 * node spans and the model call share one trace.
 */
export function installRequestTracing(fastify: FastifyInstance): void {
  const tracer = trace.getTracer('spindle-gateway');
  fastify.addHook('onRequest', (request, reply, done) => {
    const parent = propagation.extract(context.active(), request.headers);
    const route = request.routeOptions.url ?? request.url.split('?')[0];
    const span = tracer.startSpan(
      `${request.method} ${route}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'http.route': route } },
      parent,
    );
    (request as unknown as Record<symbol, Context>)[CONTEXT] = trace.setSpan(parent, span);
    reply.raw.once('close', () => {
      span.setAttribute('http.response.status_code', reply.raw.statusCode);
      if (reply.raw.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    done();
  });
}

export function traceContextOf(request: FastifyRequest): Context {
  return (request as unknown as Record<symbol, Context>)[CONTEXT] ?? context.active();
}
