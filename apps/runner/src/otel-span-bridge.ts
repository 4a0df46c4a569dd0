import { context, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { onRunEvent, type RunEvent, type RunEventHandlers } from '@spindle/contracts';

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
    onRunEvent(this.handlers, event);
  }

  /** Which events open and close an OTel span: node executions and model calls. */
  private readonly handlers: RunEventHandlers = {
    'node.started': (e) => this.start(e, `node ${e.nodeId}`, { 'spindle.node.type': e.data.nodeType }),
    'model.started': (e) => this.start(e, `model ${e.data.model}`, { 'gen_ai.request.model': e.data.model }),
    'node.completed': (e) => this.end(e.spanId),
    'model.completed': (e) =>
      this.end(e.spanId, undefined, {
        'gen_ai.usage.input_tokens': e.data.usage.inputTokens,
        'gen_ai.usage.output_tokens': e.data.usage.outputTokens,
      }),
    'node.failed': (e) => this.end(e.spanId, `${e.data.error.code}: ${e.data.error.message}`),
    'model.failed': (e) => this.end(e.spanId, `${e.data.error.code}: ${e.data.error.message}`),
    // The run span is the bridge's own; tool calls, branches and requests are not mirrored (yet).
    'run.queued': () => undefined,
    'run.started': () => undefined,
    'run.awaiting': () => undefined,
    'run.resumed': () => undefined,
    'run.yielded': () => undefined,
    'run.completed': () => undefined,
    'run.failed': () => undefined,
    'run.canceled': () => undefined,
    'tool.called': () => undefined,
    'tool.returned': () => undefined,
    'loop.iteration': () => undefined,
    'branch.started': () => undefined,
    'branch.completed': () => undefined,
    'input.requested': () => undefined,
    'input.answered': () => undefined,
    'approval.requested': () => undefined,
    'approval.resolved': () => undefined,
    'checkpoint.saved': () => undefined,
    'context.truncated': () => undefined,
    custom: () => undefined,
  };

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
