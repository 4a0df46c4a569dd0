import { context, diag, propagation, trace, type Tracer } from '@opentelemetry/api';
import { CompositePropagator, globalErrorHandler, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  AlwaysOffSampler,
  BatchSpanProcessor,
  NoopSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';

export interface TelemetryOptions {
  serviceName: string;
  /** Collector base URL, e.g. `http://otel-collector:4318`; traces go to `${otlpEndpoint}/v1/traces`. */
  otlpEndpoint?: string;
  /** Extra processors, e.g. `new SimpleSpanProcessor(new InMemorySpanExporter())` in tests. */
  spanProcessors?: SpanProcessor[];
  /** Patch `pg`. Only works if `pg` is required AFTER startTelemetry (require hook). */
  instrumentPg?: boolean;
}

export interface Telemetry {
  tracer(name?: string): Tracer;
  /** Whether any span this process records leaves it (an OTLP endpoint or a processor was given). */
  readonly exportsSpans: boolean;
  shutdown(): Promise<void>;
}

// One SDK per process. The OTel API refuses to replace a registered global
// (it logs "duplicate registration" and keeps the first), so a second NodeSDK
// would silently record into the first one. Instead:
//  - a call while telemetry is running returns the SAME handle (its options are
//    ignored, with a diag warning), so Jest files and apps never throw;
//  - shutdown() unregisters the globals, so a later call starts a fresh SDK.
let active: Telemetry | undefined;

export function startTelemetry(options: TelemetryOptions): Telemetry {
  if (active) {
    diag.warn(`startTelemetry(${options.serviceName}): telemetry already running; reusing it and ignoring these options`);
    return active;
  }

  const pg = options.instrumentPg ? new PgInstrumentation() : undefined;
  const processors = spanProcessorsFor(options);
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    spanProcessors: processors.list,
    ...(processors.exporting ? {} : { sampler: NOTHING_EXPORTED }),
    // Explicit so OTEL_PROPAGATORS cannot swap the wire format other services expect.
    textMapPropagator: new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
    // NodeSDK has no auto-instrumentations by default; keep it an explicit list.
    instrumentations: pg ? [pg] : [],
    // Empty arrays (not undefined) stop NodeSDK from building OTLP metric and log
    // exporters from OTEL_* env defaults, which would push to localhost:4318.
    metricReaders: [],
    logRecordProcessors: [],
    // contextManager left undefined => NodeSDK installs AsyncLocalStorageContextManager.
  });
  sdk.start();

  let stopping: Promise<void> | undefined;
  const stop = async (): Promise<void> => {
    try {
      await sdk.shutdown();
    } catch (err) {
      // The final flush fails when the collector is down (ECONNREFUSED after the
      // exporter's retries). Losing spans must not fail a SIGTERM handler, so route
      // it like every other OTel export error (setGlobalErrorHandler to see it).
      globalErrorHandler(err instanceof Error ? err : String(err));
    } finally {
      pg?.disable();
      // NodeSDK.shutdown() leaves its globals registered; drop them so a later
      // startTelemetry() can register a fresh provider instead of being ignored.
      trace.disable();
      context.disable();
      propagation.disable();
      if (active === handle) active = undefined;
    }
  };
  const handle: Telemetry = {
    tracer: (name) => trace.getTracer(name ?? options.serviceName),
    exportsSpans: processors.exporting,
    shutdown: () => (stopping ??= stop()),
  };
  active = handle;
  return handle;
}

/** Whether this process's telemetry is running and sends its spans somewhere: work done only to make a span can be skipped otherwise. */
export function spansExported(): boolean {
  return active?.exportsSpans ?? false;
}

/**
 * A process that exports nothing starts no sampled trace: its spans keep real ids (for logs and
 * propagation) without being recorded, which was a tenth of the runner's CPU at 20 concurrent
 * runs (a span per node, its attributes and events, dropped by the no-op processor). A sampled
 * parent from a process that does export is still followed.
 */
const NOTHING_EXPORTED: Sampler = new ParentBasedSampler({ root: new AlwaysOffSampler() });

function spanProcessorsFor(options: TelemetryOptions): { list: SpanProcessor[]; exporting: boolean } {
  const list = [...(options.spanProcessors ?? [])];
  if (options.otlpEndpoint) {
    const url = `${options.otlpEndpoint.replace(/\/+$/, '')}/v1/traces`;
    list.push(new BatchSpanProcessor(new OTLPTraceExporter({ url })));
  }
  const exporting = list.length > 0;
  // NodeSDK registers no tracer provider at all for an empty list, and one from
  // OTEL_TRACES_EXPORTER for `undefined`. A no-op processor gets a real provider
  // (valid trace ids for logs and propagation) that exports nothing.
  if (!exporting) list.push(new NoopSpanProcessor());
  return { list, exporting };
}
