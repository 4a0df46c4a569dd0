import { context, trace, TraceFlags } from '@opentelemetry/api';
import { loggingErrorHandler, setGlobalErrorHandler } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startTelemetry, type Telemetry } from './telemetry.bootstrap';

describe('startTelemetry', () => {
  const started: Telemetry[] = [];
  const start = (...args: Parameters<typeof startTelemetry>) => {
    const handle = startTelemetry(...args);
    started.push(handle);
    return handle;
  };
  afterAll(() => Promise.all(started.map((t) => t.shutdown())));

  it('returns the running handle on a second call instead of throwing', async () => {
    const exporter = new InMemorySpanExporter();
    const processor = new SimpleSpanProcessor(exporter);
    const first = start({ serviceName: 'svc-a', spanProcessors: [processor] });
    const second = start({ serviceName: 'svc-b' });

    expect(second).toBe(first);
    second.tracer('x').startSpan('via-second-handle').end();
    await processor.forceFlush();
    const [span] = exporter.getFinishedSpans();
    expect(span.name).toBe('via-second-handle');
    expect(span.resource.attributes['service.name']).toBe('svc-a');
  });

  it('starts a fresh SDK after shutdown', async () => {
    await started[0].shutdown();
    await started[0].shutdown(); // idempotent

    const exporter = new InMemorySpanExporter();
    const processor = new SimpleSpanProcessor(exporter);
    const telemetry = start({ serviceName: 'svc-c', spanProcessors: [processor] });
    telemetry.tracer().startSpan('after-restart').end();
    await processor.forceFlush();

    const [span] = exporter.getFinishedSpans();
    expect(span.name).toBe('after-restart');
    expect(span.resource.attributes['service.name']).toBe('svc-c');
    await telemetry.shutdown();
  });

  it('creates spans with real ids that record nothing when nothing is exported, and follows a sampled parent', async () => {
    const telemetry = start({ serviceName: 'svc-d' });
    const span = telemetry.tracer().startSpan('local-only');
    expect(trace.isSpanContextValid(span.spanContext())).toBe(true);
    expect(span.isRecording()).toBe(false);
    expect(telemetry.exportsSpans).toBe(false);
    span.end();
    const parent = trace.wrapSpanContext({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: TraceFlags.SAMPLED });
    const child = telemetry.tracer().startSpan('child', {}, trace.setSpan(context.active(), parent));
    expect(child.isRecording()).toBe(true);
    expect(child.spanContext().traceId).toBe('a'.repeat(32));
    child.end();
    await telemetry.shutdown();
  });

  it('records spans when something exports them', async () => {
    const exporter = new InMemorySpanExporter();
    const processor = new SimpleSpanProcessor(exporter);
    const telemetry = start({ serviceName: 'svc-e', spanProcessors: [processor] });
    expect(telemetry.exportsSpans).toBe(true);
    telemetry.tracer().startSpan('exported').end();
    await processor.forceFlush();
    const names = exporter.getFinishedSpans().map((s) => s.name);
    await telemetry.shutdown();
    expect(names).toEqual(['exported']);
  });

  it('shuts down cleanly with an OTLP endpoint whose export fails', async () => {
    // The real POST to ${otlpEndpoint}/v1/traces cannot be asserted under Jest: the
    // OTLP http transport loads node:http via dynamic import(), which Jest's CJS
    // runtime rejects (open-telemetry/opentelemetry-js#6035). What matters here is
    // that a failing export never breaks the service or its shutdown.
    const exportErrors: unknown[] = [];
    setGlobalErrorHandler((err) => exportErrors.push(err));
    try {
      const telemetry = start({ serviceName: 'svc-e', otlpEndpoint: 'http://127.0.0.1:9/' });
      const span = telemetry.tracer().startSpan('unshippable');
      expect(trace.isSpanContextValid(span.spanContext())).toBe(true);
      span.end();
      await expect(telemetry.shutdown()).resolves.toBeUndefined();
    } finally {
      setGlobalErrorHandler(loggingErrorHandler());
    }
    expect(exportErrors.length).toBeGreaterThan(0);
  });

  it('starts and stops with instrumentPg', async () => {
    // Jest's module registry bypasses require-in-the-middle, so pg spans cannot be
    // observed here; this only proves the option wires up and tears down cleanly.
    const telemetry = start({ serviceName: 'svc-f', instrumentPg: true });
    expect(trace.isSpanContextValid(telemetry.tracer().startSpan('x').spanContext())).toBe(true);
    await telemetry.shutdown();
  });
});
