import type { RunEvent } from '@spindle/contracts';
import { eventually, OtlpCollector, startStack, type CollectedSpan, type FakeOpenAIReply, type Stack } from '@spindle/testing';

/** The agent asks for the calculator once, then answers. */
function agentModel(body: { messages: Array<{ role: string }> }): FakeOpenAIReply {
  const usage = { prompt_tokens: 40, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 30 } };
  if (!body.messages.some((m) => m.role === 'tool')) {
    return { text: '', toolCalls: [{ id: 'call_sum', name: 'calculator', arguments: { expression: '6 * 7' } }], usage };
  }
  return { text: 'It is 42.', usage };
}

const SPAN_KIND = { internal: 1, server: 2, client: 3 };

/**
 * One trace from the HTTP request through the run, the agent, its model calls and its tool call,
 * exported by the gateway and runner processes over OTLP/HTTP to a collector in this process, and
 * described by the OpenTelemetry GenAI semantic conventions.
 */
describe('OpenTelemetry: one trace from HTTP to the model and the tool, in GenAI conventions', () => {
  const collector = new OtlpCollector();
  let stack: Stack;

  beforeAll(async () => {
    await collector.start();
    stack = await startStack({
      reply: agentModel as never,
      serviceEnv: () => ({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '100' }),
      runnerEnv: { SPINDLE_PLUGINS: 'examples/plugins/calculator.js', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' },
    });
    const agent = {
      kind: 'graph',
      nodes: [
        {
          id: 'maths',
          type: 'agent',
          model: 'compatible:maths-model',
          prompt: 'What is 6 * 7?',
          tools: ['calculator'],
          output_key: 'answer',
        },
      ],
    };
    expect((await stack.api('/v1/workflows/traced', { method: 'PUT', body: JSON.stringify(agent) })).status).toBe(201);
  });
  afterAll(async () => {
    await stack?.stop();
    await collector.stop();
  });

  it('nests run → invoke_agent → chat and execute_tool under the HTTP span, with usage, finish reasons and opted-in content', async () => {
    const { frames } = await stack.sse('/v1/workflows/traced/runs', { method: 'POST', body: '{}' });
    expect(frames.at(-1)?.event).toBe('run.completed');

    const named = (name: string): CollectedSpan[] => collector.spans.filter((s) => s.name === name);
    // Batches leave each process every 100 ms, in the order the spans ended: wait for all of them.
    const expected = ['POST /v1/workflows/:name/runs', 'run traced', 'invoke_agent maths', 'chat maths-model', 'execute_tool calculator'];
    await eventually(async () => expect(expected.map((name) => named(name).length)).toEqual([1, 1, 1, 2, 1]), 200, 100);
    const [http] = named('POST /v1/workflows/:name/runs');
    const [run] = named('run traced');
    const [agent] = named('invoke_agent maths');
    const [firstChat, secondChat] = named('chat maths-model');
    const [tool] = named('execute_tool calculator');

    expect(http).toMatchObject({ service: 'spindle-gateway', kind: SPAN_KIND.server });
    expect(agent.service).toBe('spindle-runner');
    const traceId = http.traceId;
    expect([run, agent, firstChat, secondChat, tool].map((s) => s.traceId)).toEqual(Array(5).fill(traceId));
    expect(run.parentSpanId).toBe(http.spanId);
    expect(agent.parentSpanId).toBe(run.spanId);
    for (const child of [firstChat, secondChat, tool]) expect(child.parentSpanId).toBe(agent.spanId);

    expect(agent.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'maths' });
    expect(firstChat).toMatchObject({ kind: SPAN_KIND.client });
    expect(firstChat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'compatible',
      'gen_ai.request.model': 'maths-model',
      'gen_ai.response.model': 'maths-model',
      'gen_ai.response.finish_reasons': ['tool-calls'],
      'gen_ai.usage.input_tokens': 40,
      'gen_ai.usage.output_tokens': 9,
      'gen_ai.usage.cache_read.input_tokens': 30,
    });
    expect(secondChat.attributes['gen_ai.response.finish_reasons']).toEqual(['stop']);
    expect(JSON.parse(String(secondChat.attributes['gen_ai.output.messages']))).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'It is 42.' }], finish_reason: 'stop' },
    ]);
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'calculator',
      'gen_ai.tool.call.id': 'call_sum',
      'gen_ai.tool.type': 'function',
    });
    expect(JSON.parse(String(tool.attributes['gen_ai.tool.call.arguments']))).toEqual({ expression: '6 * 7' });
    expect(String(tool.attributes['gen_ai.tool.call.result'])).toContain('42');
  });

  it('exports each score from the trace recorder as `score <name>` in the run’s trace, beside the run span', async () => {
    const { frames } = await stack.sse('/v1/workflows/traced/runs', { method: 'POST', body: '{}' });
    const events = frames.filter((f) => f.event !== 'token').map((f) => JSON.parse(f.data) as RunEvent);
    const runId = events[0].runId;
    const chat = events.find((e) => e.type === 'model.completed');
    expect(chat).toBeDefined();
    const score = (body: object) => stack.api(`/v1/runs/${runId}/scores`, { method: 'POST', body: JSON.stringify(body) });
    expect((await score({ name: 'helpfulness', value: 0.9, comment: 'free text stays out' })).status).toBe(201);
    expect((await score({ name: 'correct', value: true, spanId: chat?.spanId })).status).toBe(201);

    const ofRun = (name: string) => collector.spans.filter((s) => s.name === name && s.attributes['spindle.run_id'] === runId);
    await eventually(async () =>
      expect(['run traced', 'score helpfulness', 'score correct'].map((n) => ofRun(n).length)).toEqual([1, 1, 1]),
    );
    const [run] = ofRun('run traced');
    const [helpfulness] = ofRun('score helpfulness');
    const [correct] = ofRun('score correct');
    // One trace: each score under the span the run was queued in (the POST's), as the run span is.
    for (const s of [helpfulness, correct]) {
      expect(s).toMatchObject({ service: expect.stringContaining('trace-recorder'), kind: SPAN_KIND.internal, traceId: run.traceId });
      expect(s.parentSpanId).toBe(run.parentSpanId);
    }
    expect(helpfulness.attributes).toMatchObject({
      'spindle.score.name': 'helpfulness',
      'spindle.score.value': 0.9,
      'spindle.score.data_type': 'numeric',
      'spindle.score.source': 'key',
    });
    expect(correct.attributes).toMatchObject({ 'spindle.score.value': true, 'spindle.span_id': chat?.spanId });
    expect(JSON.stringify(helpfulness.attributes)).not.toContain('free text stays out');
  });
});
