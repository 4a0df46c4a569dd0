import { context, ROOT_CONTEXT, SpanKind, type Attributes, type Context, type Tracer } from '@opentelemetry/api';
import { runTraceHeaders, type Bus } from '@spindle/bus';
import type { Score } from '@spindle/contracts';
import { extractTraceContext } from '@spindle/telemetry';

/** The trace context a run's scores join: what its `run.queued` carries. */
export type RunTraceParent = (runId: string) => Promise<Context>;

/**
 * Scores into OpenTelemetry. A score never enters the run's log, so the runner's `OtelSpanBridge`
 * never sees one: the trace recorder, which stores each score, exports it once it is first stored,
 * as an instant span `score <name>` in the run's trace. Its parent is the span the run was queued
 * in (the `traceparent` of the run's `run.queued`, the same parent the runner's `run <workflow>`
 * span has: the gateway's request span), so the score sits beside the run's spans under one trace
 * id. A run queued without a trace context gets a score span of its own trace, found by
 * `spindle.run_id`. The comment (free text) stays out, as the bridge keeps content out by default.
 */
export class ScoreSpans {
  constructor(
    private readonly tracer: Tracer,
    private readonly parentOf: RunTraceParent,
  ) {}

  async export(score: Score): Promise<void> {
    const parent = await this.parentOf(score.runId);
    const at = Date.parse(score.createdAt);
    this.tracer
      .startSpan(`score ${score.name}`, { kind: SpanKind.INTERNAL, startTime: at, attributes: scoreSpanAttributes(score) }, parent)
      .end(at);
  }
}

/**
 * What a score span says: the run and, for a score of a span (a node or a model call), that span's
 * log id as the bridge names it on the span it mirrors (`spindle.span_id`); the score's name, its
 * value as its own type, its kind, and who gave it (`evaluator`, or the actor's kind: `user`, `key`, `system`).
 */
export function scoreSpanAttributes(score: Score): Attributes {
  return {
    'spindle.run_id': score.runId,
    ...(score.spanId !== null && { 'spindle.span_id': score.spanId }),
    'spindle.score.id': score.scoreId,
    'spindle.score.name': score.name,
    'spindle.score.value': score.value,
    'spindle.score.data_type': score.dataType,
    'spindle.score.source': score.evaluator ? 'evaluator' : score.by.kind,
    ...(score.evaluator && {
      'spindle.score.evaluator.name': score.evaluator.name,
      'spindle.score.evaluator.version': score.evaluator.version,
    }),
  };
}

/** The context a run's `run.queued` carries in its headers; the root context (a trace of its own) when it carries none. */
export function runTraceParent(bus: Bus): RunTraceParent {
  return async (runId) => {
    const headers = await runTraceHeaders(bus, runId);
    return traceParentOf(headers);
  };
}

/** Read on the root context, so a score never joins whatever span happens to be active where it is stored. */
export function traceParentOf(headers: Parameters<typeof extractTraceContext>[0]): Context {
  return context.with(ROOT_CONTEXT, () => extractTraceContext(headers));
}
