import { context, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { RunEvent } from '@spindle/contracts';
import { OtelSpanBridge } from './otel-span-bridge';

const at = '2026-11-30T10:00:00.000Z';
const model = { runId: 'run-1', at, nodeId: 'ask', spanId: 'm1', parentSpanId: 'root', path: 'root/ask' };
const events: RunEvent[] = [
  { ...model, seq: 1, type: 'model.started', data: { model: 'openai:gpt-4o', system: 'Be brief.', prompt: 'secret plans', stream: false } },
  {
    ...model,
    seq: 2,
    type: 'model.failed',
    data: { model: 'openai:gpt-4o', error: { code: 'provider_error', message: 'rate limited' }, durationMs: 3 },
  },
];

function spansOf(captureContent?: boolean) {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
  const runSpan = tracer.startSpan('run');
  const bridge = new OtelSpanBridge(tracer, runSpan, trace.setSpan(context.active(), runSpan), { captureContent });
  for (const e of events) bridge.observe(e);
  return exporter.getFinishedSpans();
}

describe('OtelSpanBridge', () => {
  it('leaves what was said out of spans unless content capture is on, and marks a failed call with its error type', () => {
    const [quiet] = spansOf();
    expect(quiet.name).toBe('chat gpt-4o');
    expect(quiet.attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'error.type': 'provider_error',
    });
    expect(Object.keys(quiet.attributes).filter((k) => /messages|instructions/.test(k))).toEqual([]);
    expect(quiet.status).toMatchObject({ code: 2, message: 'provider_error: rate limited' });

    const [told] = spansOf(true);
    expect(JSON.parse(String(told.attributes['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'secret plans' }] },
    ]);
    expect(JSON.parse(String(told.attributes['gen_ai.system_instructions']))).toEqual([{ type: 'text', content: 'Be brief.' }]);
  });

  it('counts the files a call sent and names their media types, never their content', () => {
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
    const runSpan = tracer.startSpan('run');
    const bridge = new OtelSpanBridge(tracer, runSpan, trace.setSpan(context.active(), runSpan), {});
    const file = (id: string, mediaType: string) => ({
      type: 'file' as const,
      fileId: `file_${id.repeat(26)}`,
      mediaType,
      bytes: 1,
      sha256: id.repeat(64),
    });
    const attachments = [file('a', 'image/png'), file('b', 'image/png'), file('c', 'application/pdf')];
    bridge.observe({ ...events[0], data: { ...events[0].data, attachments } } as RunEvent);
    bridge.observe(events[1]);
    const [span] = exporter.getFinishedSpans();
    expect(span.attributes).toMatchObject({
      'spindle.attachments.count': 3,
      'spindle.attachments.media_types': ['image/png', 'application/pdf'],
    });
  });

  it('mirrors a retrieval as a GenAI retrieval span: data source, top_k, chunk ids and scores, the query only when captured', () => {
    const retrieval: RunEvent = {
      runId: 'run-1',
      at,
      seq: 3,
      nodeId: 'search',
      spanId: 'r1',
      parentSpanId: 'root',
      path: 'root/search',
      type: 'retrieval.completed',
      data: {
        retriever: 'knowledge_base',
        knowledgeBase: 'support',
        version: 2,
        query: 'refund policy',
        topK: 3,
        chunkCount: 1,
        topScore: 0.8,
        chunks: [{ id: 'doc_1_0', source: 'refunds.md', score: 0.8, tokens: 12, text: 'Refunds take five days.' }],
        durationMs: 40,
      },
    };
    const spansFor = (captureContent: boolean) => {
      const exporter = new InMemorySpanExporter();
      const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
      const runSpan = tracer.startSpan('run');
      new OtelSpanBridge(tracer, runSpan, trace.setSpan(context.active(), runSpan), { captureContent }).observe(retrieval);
      return exporter.getFinishedSpans();
    };
    const [quiet] = spansFor(false);
    expect(quiet.name).toBe('retrieval support');
    expect(quiet.attributes).toMatchObject({
      'gen_ai.operation.name': 'retrieval',
      'gen_ai.data_source.id': 'support',
      'gen_ai.request.top_k': 3,
      'spindle.retrieval.chunk_count': 1,
      'spindle.knowledge_base.version': 2,
    });
    expect(JSON.parse(String(quiet.attributes['gen_ai.retrieval.documents']))).toEqual([{ id: 'doc_1_0', score: 0.8 }]);
    expect(quiet.attributes['gen_ai.retrieval.query.text']).toBeUndefined();
    expect(quiet.duration).toEqual([0, 40_000_000]);
    expect(spansFor(true)[0].attributes['gen_ai.retrieval.query.text']).toBe('"refund policy"');
  });

  it('records what user code said as events on its tool call’s span, the custom data only when captured', () => {
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
    const runSpan = tracer.startSpan('run');
    const bridge = new OtelSpanBridge(tracer, runSpan, trace.setSpan(context.active(), runSpan), {});
    const call = { runId: 'run-1', at, nodeId: 'support', parentSpanId: 'root', path: 'root/support' };
    const under = { ...call, parentSpanId: 't1' };
    const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, costUsd: 0.01 };
    const said: RunEvent[] = [
      { ...call, seq: 1, spanId: 't1', type: 'tool.called', data: { name: 'fetch_page', callId: 'c1', arguments: {} } },
      {
        ...under,
        seq: 2,
        spanId: 'a1',
        type: 'attempt.failed',
        data: {
          kind: 'tool',
          name: 'fetch_page',
          callId: 'c1',
          attempt: 1,
          error: { code: 'tool_failed', message: 'busy' },
          retryInMs: 100,
        },
      },
      { ...under, seq: 3, spanId: 'e1', type: 'custom', data: { name: 'page.fetched', data: { url: 'secret' } } },
      {
        ...under,
        seq: 4,
        spanId: 'u1',
        type: 'usage.reported',
        data: { usage, label: 'pages', source: { kind: 'tool', name: 'fetch_page', callId: 'c1' }, runUsage: usage },
      },
      { ...call, seq: 5, spanId: 't1', type: 'tool.returned', data: { name: 'fetch_page', callId: 'c1', result: 'ok', durationMs: 5 } },
    ];
    for (const e of said) bridge.observe(e);
    const [tool] = exporter.getFinishedSpans();
    expect(tool.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'spindle.attempt.failed',
        expect.objectContaining({ 'spindle.attempt': 1, 'error.type': 'tool_failed', 'spindle.retry_in_ms': 100 }),
      ],
      ['spindle.custom', { 'spindle.span_id': 'e1', 'spindle.event.name': 'page.fetched' }],
      ['spindle.usage.reported', expect.objectContaining({ 'spindle.cost_usd': 0.01, 'spindle.usage.label': 'pages' })],
    ]);
  });
});
