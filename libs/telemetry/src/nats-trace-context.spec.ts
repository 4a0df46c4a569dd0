import { context, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { headers } from '@nats-io/transport-node';
import { extractFromRecord, extractTraceContext, injectIntoRecord, injectTraceContext } from './nats-trace-context';
import { startTelemetry, type Telemetry } from './telemetry.bootstrap';
import { withSpan } from './with-span.helper';

describe('trace context over NATS headers', () => {
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor(exporter);
  let telemetry: Telemetry;
  // Spans reach the exporter asynchronously (see finishedSpans in with-span.helper.spec.ts).
  const finished = async (name: string) => {
    await processor.forceFlush();
    const span = exporter.getFinishedSpans().find((s) => s.name === name);
    if (!span) throw new Error(`no finished span named ${name}`);
    return span;
  };

  beforeAll(() => {
    telemetry = startTelemetry({
      serviceName: 'nats-trace-context-spec',
      spanProcessors: [processor],
    });
  });
  afterEach(() => exporter.reset());
  afterAll(() => telemetry.shutdown());

  it('continues the publisher trace in the consumer span', async () => {
    const tracer = telemetry.tracer();
    const msgHeaders = headers();

    const publish = tracer.startSpan('runs.publish', { kind: SpanKind.PRODUCER });
    injectTraceContext(msgHeaders, trace.setSpan(context.active(), publish));
    publish.end();

    // "Other side": only the headers cross the wire.
    await withSpan(tracer, 'runs.consume', { kind: SpanKind.CONSUMER, parent: extractTraceContext(msgHeaders) }, async () => undefined);

    const producer = await finished('runs.publish');
    const consumer = await finished('runs.consume');
    expect(msgHeaders.get('traceparent')).toBe(`00-${producer.spanContext().traceId}-${producer.spanContext().spanId}-01`);
    expect(consumer.name).toBe('runs.consume');
    expect(consumer.spanContext().traceId).toBe(producer.spanContext().traceId);
    expect(consumer.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);
    expect(consumer.parentSpanContext?.isRemote).toBe(true);
  });

  it('injects the active span when no context is passed', async () => {
    const tracer = telemetry.tracer();
    const msgHeaders = headers();
    const traceId = await withSpan(tracer, 'outer', {}, async (span) => {
      injectTraceContext(msgHeaders);
      return span.spanContext().traceId;
    });
    expect(msgHeaders.get('traceparent')).toContain(traceId);
  });

  it('reads a traceparent header regardless of its case', () => {
    const msgHeaders = headers();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    msgHeaders.set('Traceparent', `00-${traceId}-00f067aa0ba902b7-01`);
    expect(trace.getSpanContext(extractTraceContext(msgHeaders))?.traceId).toBe(traceId);
  });

  it('starts a new root trace when the message carries no context', async () => {
    const ctx = extractTraceContext(headers());
    expect(trace.getSpanContext(ctx)).toBeUndefined();
    expect(extractTraceContext(undefined)).toBe(context.active());
  });

  it('round-trips through a plain record', async () => {
    const tracer = telemetry.tracer();
    const record = await withSpan(tracer, 'http.out', {}, async () => injectIntoRecord({}));
    await withSpan(tracer, 'http.in', { parent: extractFromRecord(record) }, async () => undefined);

    const outbound = await finished('http.out');
    const inbound = await finished('http.in');
    expect(inbound.spanContext().traceId).toBe(outbound.spanContext().traceId);
    expect(inbound.parentSpanContext?.spanId).toBe(outbound.spanContext().spanId);
  });
});
