import { context, propagation, ROOT_CONTEXT, trace, TraceFlags, type Context, type ContextManager } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { headers } from '@nats-io/transport-node';
import type { Score } from '@spindle/contracts';
import { ScoreSpans, traceParentOf } from './score-spans';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const QUEUED_IN = '00f067aa0ba902b7';

const score = (fields: Partial<Score> = {}): Score => ({
  scoreId: 'sc_1',
  runId: 'run-1',
  spanId: null,
  name: 'helpfulness',
  value: 0.8,
  dataType: 'numeric',
  comment: 'clear and short',
  by: { kind: 'user', id: 'ana', name: 'Ana' },
  evaluator: null,
  createdAt: '2026-12-01T10:00:00.000Z',
  ...fields,
});

/** The run's queued-in span, as `run.queued`'s `traceparent` names it. */
const queuedIn: Context = trace.setSpanContext(ROOT_CONTEXT, {
  traceId: TRACE_ID,
  spanId: QUEUED_IN,
  traceFlags: TraceFlags.SAMPLED,
  isRemote: true,
});

function exported(parentOf: (runId: string) => Promise<Context>) {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
  return { spans: new ScoreSpans(tracer, parentOf), finished: () => exporter.getFinishedSpans() };
}

describe('ScoreSpans', () => {
  it('exports a score as an instant span `score <name>` in the run’s trace, under the span the run was queued in', async () => {
    const asked: string[] = [];
    const { spans, finished } = exported(async (runId) => (asked.push(runId), queuedIn));
    await spans.export(score());
    const [span] = finished();
    expect(asked).toEqual(['run-1']);
    expect(span.name).toBe('score helpfulness');
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(QUEUED_IN);
    expect(span.startTime).toEqual(span.endTime);
    expect(new Date(span.startTime[0] * 1000).toISOString()).toBe('2026-12-01T10:00:00.000Z');
    expect(span.attributes).toEqual({
      'spindle.run_id': 'run-1',
      'spindle.score.id': 'sc_1',
      'spindle.score.name': 'helpfulness',
      'spindle.score.value': 0.8,
      'spindle.score.data_type': 'numeric',
      'spindle.score.source': 'user',
    });
  });

  it('names the span a score is about and the evaluator that gave it, and keeps a boolean or a category as itself', async () => {
    const { spans, finished } = exported(async () => queuedIn);
    const evaluator = { name: 'exact_match', version: 'judged v1' };
    const by = { kind: 'system' as const, id: 'evaluator', name: 'evaluator' };
    await spans.export(score({ name: 'right_city', value: true, dataType: 'boolean', spanId: 'span-model', evaluator, by }));
    await spans.export(score({ name: 'tone', value: 'friendly', dataType: 'categorical', by: { kind: 'key', id: 'k1', name: 'ci' } }));
    const [judged, tone] = finished();
    expect(judged.attributes).toMatchObject({
      'spindle.span_id': 'span-model',
      'spindle.score.value': true,
      'spindle.score.data_type': 'boolean',
      'spindle.score.source': 'evaluator',
      'spindle.score.evaluator.name': 'exact_match',
      'spindle.score.evaluator.version': 'judged v1',
    });
    expect(tone.attributes).toMatchObject({ 'spindle.score.value': 'friendly', 'spindle.score.source': 'key' });
    // Free text stays out of the telemetry.
    expect(JSON.stringify([judged.attributes, tone.attributes])).not.toContain('clear and short');
  });
});

/** The smallest context manager that makes `context.with` take effect (synchronous code only). */
class StackContextManager implements ContextManager {
  private current = ROOT_CONTEXT;
  active = () => this.current;
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A) {
    const before = this.current;
    this.current = ctx;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.current = before;
    }
  }
  bind = <T>(_ctx: Context, target: T) => target;
  enable = () => this;
  disable = () => this;
}

describe('traceParentOf', () => {
  beforeAll(() => {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    context.setGlobalContextManager(new StackContextManager());
  });
  afterAll(() => {
    propagation.disable();
    context.disable();
  });

  it('reads the run’s trace from its `run.queued` headers, and from nothing else', () => {
    const h = headers();
    h.set('traceparent', `00-${TRACE_ID}-${QUEUED_IN}-01`);
    expect(trace.getSpanContext(traceParentOf(h))).toMatchObject({ traceId: TRACE_ID, spanId: QUEUED_IN, isRemote: true });
    // A run queued without a trace context: a trace of its own, never the span active where the score is stored.
    const active = trace.setSpanContext(ROOT_CONTEXT, { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 });
    context.with(active, () => {
      expect(trace.getSpanContext(context.active())?.traceId).toBe('a'.repeat(32));
      expect(trace.getSpanContext(traceParentOf(headers()))).toBeUndefined();
      expect(trace.getSpanContext(traceParentOf(undefined))).toBeUndefined();
    });
  });
});
