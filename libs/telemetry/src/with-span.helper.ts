import { context, SpanStatusCode, type Attributes, type Context, type Span, type SpanKind, type Tracer } from '@opentelemetry/api';

export interface WithSpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** E.g. the result of extractTraceContext(msg.headers); default: the active context. */
  parent?: Context;
}

/**
 * Runs `fn` inside an active span so nested spans and log lines pick it up.
 * On throw: records the exception, sets ERROR status, rethrows. Always ends the span.
 */
export function withSpan<T>(tracer: Tracer, name: string, opts: WithSpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  const { parent = context.active(), kind, attributes } = opts;
  return tracer.startActiveSpan(name, { kind, attributes }, parent, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      span.recordException(error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
      throw err;
    } finally {
      span.end();
    }
  });
}
