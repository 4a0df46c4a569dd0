import { context, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { RunEvent } from '@spindle/contracts';

/**
 * Mirrors the run log's spans into OpenTelemetry as events are appended: the run, each node
 * execution and each model call become OTel spans under the trace the HTTP request started.
 * Pairing is by the log's `spanId`, exactly as the trace recorder pairs them.
 */
export class OtelSpanBridge {
  private readonly open = new Map<string, { span: Span; ctx: Context }>();

  constructor(
    private readonly tracer: Tracer,
    private readonly runSpan: Span,
    private readonly runCtx: Context,
  ) {}

  /** The context events should carry in their headers. */
  contextFor(spanId?: string): Context {
    return (spanId && this.open.get(spanId)?.ctx) || this.runCtx;
  }

  observe(event: RunEvent): void {
    switch (event.type) {
      case 'node.started':
        return this.start(event, `node ${event.nodeId}`, { 'spindle.node.type': event.data.nodeType });
      case 'model.started':
        return this.start(event, `model ${event.data.model}`, { 'gen_ai.request.model': event.data.model });
      case 'node.completed':
        return this.end(event.spanId);
      case 'model.completed':
        return this.end(event.spanId, undefined, {
          'gen_ai.usage.input_tokens': event.data.usage.inputTokens,
          'gen_ai.usage.output_tokens': event.data.usage.outputTokens,
        });
      case 'node.failed':
      case 'model.failed':
        return this.end(event.spanId, `${event.data.error.code}: ${event.data.error.message}`);
      default:
        return;
    }
  }

  endAll(): void {
    for (const id of [...this.open.keys()]) this.end(id, 'run ended with the span open');
  }

  private start(event: RunEvent, name: string, attributes: Record<string, string>) {
    const parent = this.contextFor(event.parentSpanId);
    const span = this.tracer.startSpan(
      name,
      {
        kind: SpanKind.INTERNAL,
        attributes: { 'spindle.run_id': event.runId, 'spindle.path': event.path, 'spindle.span_id': event.spanId, ...attributes },
      },
      parent,
    );
    this.open.set(event.spanId, { span, ctx: trace.setSpan(parent ?? context.active(), span) });
  }

  private end(spanId: string, error?: string, attributes?: Record<string, number>) {
    const entry = this.open.get(spanId);
    if (!entry) return;
    if (attributes) entry.span.setAttributes(attributes);
    if (error) entry.span.setStatus({ code: SpanStatusCode.ERROR, message: error });
    entry.span.end();
    this.open.delete(spanId);
  }
}
