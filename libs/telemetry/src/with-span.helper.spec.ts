import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startTelemetry, type Telemetry } from './telemetry.bootstrap';
import { withSpan } from './with-span.helper';

describe('withSpan', () => {
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor(exporter);
  let telemetry: Telemetry;
  // SimpleSpanProcessor exports only after the resource's async attributes
  // (host.id from the host detector) resolve, so flush before reading spans.
  const finishedSpans = async () => {
    await processor.forceFlush();
    return exporter.getFinishedSpans();
  };

  beforeAll(() => {
    telemetry = startTelemetry({
      serviceName: 'with-span-spec',
      spanProcessors: [processor],
    });
  });
  afterEach(() => exporter.reset());
  afterAll(() => telemetry.shutdown());

  it('records the exception, sets ERROR status, ends the span and rethrows', async () => {
    const boom = new Error('model refused');
    await expect(
      withSpan(telemetry.tracer(), 'llm.call', {}, async () => {
        throw boom;
      }),
    ).rejects.toBe(boom);

    const [span] = await finishedSpans();
    expect(span.name).toBe('llm.call');
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'model refused' });
    expect(span.events.map((e) => e.name)).toEqual(['exception']);
    expect(span.events[0].attributes?.['exception.message']).toBe('model refused');
  });

  it('keeps a non-Error throw intact for the caller', async () => {
    await expect(
      withSpan(telemetry.tracer(), 'odd', {}, async () => {
        throw 'plain string';
      }),
    ).rejects.toBe('plain string');
    expect((await finishedSpans())[0].status.code).toBe(SpanStatusCode.ERROR);
  });

  it('returns the value, applies kind/attributes and nests under the active span', async () => {
    const tracer = telemetry.tracer();
    const result = await withSpan(tracer, 'outer', {}, () =>
      withSpan(tracer, 'inner', { kind: SpanKind.CLIENT, attributes: { 'spindle.run_id': 'r1' } }, async () => 42),
    );

    expect(result).toBe(42);
    const [inner, outer] = await finishedSpans();
    expect(inner.kind).toBe(SpanKind.CLIENT);
    expect(inner.attributes['spindle.run_id']).toBe('r1');
    expect(inner.status.code).toBe(SpanStatusCode.UNSET);
    expect(inner.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
    expect(inner.spanContext().traceId).toBe(outer.spanContext().traceId);
  });
});
