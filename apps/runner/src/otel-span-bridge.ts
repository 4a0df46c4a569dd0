import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { onRunEvent, type ErrorInfo, type RunEvent, type RunEventHandlers, type RunEventOf } from '@spindle/contracts';

export interface OtelSpanBridgeOptions {
  /**
   * Whether model and tool spans carry what was said (prompts, messages, answers, tool arguments
   * and results): `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`. Off by default.
   */
  captureContent?: boolean;
}

/**
 * Mirrors the run log's spans into OpenTelemetry as events are appended, named and described by
 * the GenAI semantic conventions: an agent node is an `invoke_agent` span, a model call a `chat`
 * span (provider, request and response model, finish reasons, token usage with cached and
 * reasoning tokens), a tool or MCP call an `execute_tool` span, a search a `retrieval` span
 * (`gen_ai.data_source.id`, `gen_ai.request.top_k`, `gen_ai.retrieval.documents` as ids and
 * scores; the query only with content capture); other nodes are `node <id>`. What user code says
 * (custom events, reported usage, failed tries) are span events on its node's or tool call's span.
 * Pairing is by the log's `spanId`, exactly as the trace recorder pairs them, and the events are
 * the log's own (secrets already masked).
 */
export class OtelSpanBridge {
  private readonly open = new Map<string, { span: Span; ctx: Context }>();

  constructor(
    private readonly tracer: Tracer,
    private readonly runSpan: Span,
    private readonly runCtx: Context,
    private readonly opts: OtelSpanBridgeOptions = {},
  ) {}

  /** The context events should carry in their headers. */
  contextFor(spanId?: string): Context {
    return (spanId && this.open.get(spanId)?.ctx) || this.runCtx;
  }

  observe(event: RunEvent): void {
    onRunEvent(this.handlers, event);
  }

  /** Which events open and close an OTel span: node executions, model calls and tool calls. */
  private readonly handlers: RunEventHandlers = {
    'node.started': (e) =>
      e.data.nodeType === 'agent'
        ? this.start(e, `invoke_agent ${e.nodeId}`, SpanKind.INTERNAL, {
            'gen_ai.operation.name': 'invoke_agent',
            'gen_ai.agent.name': e.nodeId ?? e.path,
            'spindle.node.type': e.data.nodeType,
          })
        : this.start(e, `node ${e.nodeId}`, SpanKind.INTERNAL, { 'spindle.node.type': e.data.nodeType }),
    'model.started': (e) => this.start(e, `chat ${modelName(e.data.model)}`, SpanKind.CLIENT, this.modelRequest(e)),
    'node.completed': (e) => this.end(e.spanId),
    'model.completed': (e) => this.end(e.spanId, undefined, this.modelResponse(e)),
    'node.failed': (e) => this.end(e.spanId, e.data.error),
    'model.failed': (e) => this.end(e.spanId, e.data.error),
    'tool.called': (e) =>
      this.start(e, `execute_tool ${e.data.name}`, SpanKind.INTERNAL, {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': e.data.name,
        'gen_ai.tool.call.id': e.data.callId,
        'gen_ai.tool.type': 'function',
        ...this.content({ 'gen_ai.tool.call.arguments': e.data.arguments }),
      }),
    'tool.returned': (e) => this.end(e.spanId, e.data.error, this.content({ 'gen_ai.tool.call.result': e.data.result })),
    // The run span is the bridge's own; branches and requests to people are not mirrored.
    'run.queued': () => undefined,
    'run.started': () => undefined,
    'run.awaiting': () => undefined,
    'run.resumed': () => undefined,
    'run.yielded': () => undefined,
    'run.completed': () => undefined,
    'run.failed': () => undefined,
    'run.canceled': () => undefined,
    'loop.iteration': () => undefined,
    'branch.started': () => undefined,
    'branch.completed': () => undefined,
    'input.requested': () => undefined,
    'input.answered': () => undefined,
    'approval.requested': () => undefined,
    'approval.resolved': () => undefined,
    'checkpoint.saved': () => undefined,
    'context.truncated': () => undefined,
    'memory.compacted': () => undefined,
    'retrieval.completed': (e) => this.retrieval(e),
    // What user code said while it ran: events on the span of its node or tool call.
    'usage.reported': (e) =>
      this.spanEvent(
        e,
        'spindle.usage.reported',
        withoutUndefined({
          'spindle.source.kind': e.data.source.kind,
          'spindle.source.name': e.data.source.name,
          'spindle.cost_usd': e.data.usage.costUsd,
          'gen_ai.usage.input_tokens': e.data.usage.inputTokens || undefined,
          'gen_ai.usage.output_tokens': e.data.usage.outputTokens || undefined,
          'spindle.usage.label': e.data.label,
          'spindle.usage.units': e.data.units === undefined ? undefined : JSON.stringify(e.data.units),
        }),
      ),
    'attempt.failed': (e) =>
      this.spanEvent(e, 'spindle.attempt.failed', {
        'spindle.source.kind': e.data.kind,
        'spindle.source.name': e.data.name,
        'spindle.attempt': e.data.attempt,
        'error.type': e.data.error.code,
        'spindle.error.message': e.data.error.message,
        'spindle.retry_in_ms': e.data.retryInMs,
      }),
    custom: (e) =>
      e.data.name === undefined
        ? undefined
        : this.spanEvent(e, 'spindle.custom', {
            'spindle.event.name': e.data.name,
            ...this.content({ 'spindle.event.data': e.data.data }),
          }),
  };

  /** An instant of the log as an event on the open span it hangs under (the run's when that is not open). */
  private spanEvent(e: RunEvent, name: string, attributes: Attributes): void {
    const span = (e.parentSpanId && this.open.get(e.parentSpanId)?.span) || this.runSpan;
    span.addEvent(name, { 'spindle.span_id': e.spanId, ...attributes }, new Date(e.at));
  }

  endAll(): void {
    for (const id of [...this.open.keys()]) this.end(id, { code: 'interrupted', message: 'run ended with the span open' });
  }

  /** One event is the whole search: the span starts `durationMs` before it and ends at it. */
  private retrieval(e: RunEventOf<'retrieval.completed'>): void {
    const end = Date.parse(e.at);
    const span = this.tracer.startSpan(
      `retrieval ${e.data.knowledgeBase}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: end - e.data.durationMs,
        attributes: withoutUndefined({
          'spindle.run_id': e.runId,
          'spindle.path': e.path,
          'spindle.span_id': e.spanId,
          'gen_ai.operation.name': 'retrieval',
          'gen_ai.data_source.id': e.data.knowledgeBase,
          'gen_ai.request.top_k': e.data.topK,
          'spindle.retriever': e.data.retriever,
          'spindle.knowledge_base.version': e.data.version,
          'spindle.retrieval.min_score': e.data.minScore,
          'spindle.retrieval.chunk_count': e.data.chunkCount,
          'spindle.retrieval.top_score': e.data.topScore,
          // Ids and scores are not content: what was retrieved, not what it says.
          'gen_ai.retrieval.documents': JSON.stringify(e.data.chunks.map((c) => ({ id: c.id, score: c.score }))),
          ...this.content({ 'gen_ai.retrieval.query.text': e.data.query }),
        }),
      },
      this.contextFor(e.parentSpanId),
    );
    span.end(end);
  }

  private modelRequest(e: RunEventOf<'model.started'>): Attributes {
    const { system, prompt, messages } = e.data;
    return {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': providerName(e.data.model),
      'gen_ai.request.model': modelName(e.data.model),
      'spindle.model': e.data.model,
      ...attachmentAttributes(e.data.attachments),
      ...this.content({
        'gen_ai.system_instructions': system === undefined ? undefined : [{ type: 'text', content: system }],
        // The messages this call added (earlier ones are in the node's earlier model spans).
        'gen_ai.input.messages':
          messages ?? (prompt === undefined ? undefined : [{ role: 'user', parts: [{ type: 'text', content: prompt }] }]),
      }),
    };
  }

  private modelResponse(e: RunEventOf<'model.completed'>): Attributes {
    const { usage, finishReason, responseModel, text, toolCalls } = e.data;
    const parts = [
      ...(text ? [{ type: 'text', content: text }] : []),
      ...(toolCalls ?? []).map((c) => ({ type: 'tool_call', id: c.id, name: c.name, arguments: c.arguments })),
    ];
    return withoutUndefined({
      'gen_ai.response.model': responseModel,
      'gen_ai.response.finish_reasons': finishReason === undefined ? undefined : [finishReason],
      'gen_ai.usage.input_tokens': usage.inputTokens,
      'gen_ai.usage.output_tokens': usage.outputTokens,
      'gen_ai.usage.cache_read.input_tokens': usage.cachedInputTokens,
      'gen_ai.usage.cache_creation.input_tokens': usage.cacheWriteTokens,
      'gen_ai.usage.reasoning.output_tokens': usage.reasoningTokens,
      'spindle.cost_usd': usage.costUsd,
      ...this.content({ 'gen_ai.output.messages': [{ role: 'assistant', parts, finish_reason: finishReason }] }),
    });
  }

  /** Content attributes (JSON text) when capturing is on; nothing otherwise. */
  private content(values: Record<string, unknown>): Attributes {
    if (!this.opts.captureContent) return {};
    const out: Attributes = {};
    for (const [key, value] of Object.entries(values)) if (value !== undefined) out[key] = JSON.stringify(value);
    return out;
  }

  private start(event: RunEvent, name: string, kind: SpanKind, attributes: Attributes) {
    const parent = this.contextFor(event.parentSpanId);
    const span = this.tracer.startSpan(
      name,
      { kind, attributes: { 'spindle.run_id': event.runId, 'spindle.path': event.path, 'spindle.span_id': event.spanId, ...attributes } },
      parent,
    );
    this.open.set(event.spanId, { span, ctx: trace.setSpan(parent ?? context.active(), span) });
  }

  private end(spanId: string, error?: Pick<ErrorInfo, 'code' | 'message'>, attributes?: Attributes) {
    const entry = this.open.get(spanId);
    if (!entry) return;
    if (attributes) entry.span.setAttributes(attributes);
    if (error) {
      entry.span.setAttribute('error.type', error.code);
      entry.span.setStatus({ code: SpanStatusCode.ERROR, message: `${error.code}: ${error.message}` });
    }
    entry.span.end();
    this.open.delete(spanId);
  }
}

/** `openai:gpt-4o` → `gpt-4o`: the model as the provider names it. */
function modelName(model: string): string {
  const i = model.indexOf(':');
  return i > 0 ? model.slice(i + 1) : model;
}

/** The GenAI provider name: `openai` and `anthropic` as the conventions spell them; Spindle's own providers by their prefix. */
function providerName(model: string): string {
  const i = model.indexOf(':');
  return i > 0 ? model.slice(0, i) : 'unknown';
}

function withoutUndefined(values: Record<string, Attributes[string] | undefined>): Attributes {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Attributes;
}

/** How many files a model call sent and their media types (never their bytes or names: those are content). */
function attachmentAttributes(files: ReadonlyArray<{ mediaType: string }> | undefined): Attributes {
  if (!files?.length) return {};
  return { 'spindle.attachments.count': files.length, 'spindle.attachments.media_types': [...new Set(files.map((f) => f.mediaType))] };
}
