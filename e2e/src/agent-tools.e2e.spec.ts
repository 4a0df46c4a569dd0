import type { RunEvent, RunTrace } from '@spindle/contracts';
import { startStack, type FakeOpenAIReply, type Stack } from '@spindle/testing';
import { saveAndStream } from './hello-runs';

/** What the scripted provider answers, by how many tool results the conversation already has. */
function supportModel(body: { messages: Array<{ role: string }> }): FakeOpenAIReply {
  const results = body.messages.filter((m) => m.role === 'tool').length;
  const usage = { prompt_tokens: 100 + 10 * results, completion_tokens: 12 };
  if (results === 0) return { text: '', toolCalls: [{ id: 'call_1', name: 'lookup_order', arguments: { orderId: 'A-1002' } }], usage };
  if (results === 1) return { text: '', toolCalls: [{ id: 'call_2', name: 'lookup_order', arguments: { orderId: 'A-9999' } }], usage };
  if (results === 2)
    return { text: 'Let me add that up.', toolCalls: [{ id: 'call_3', name: 'calculator', arguments: { expression: '59.8 * 2' } }], usage };
  return { text: 'Order A-1002 has shipped with DHL; A-9999 does not exist. Two of them would cost 119.6 EUR.', usage };
}

describe('an agent with tools from plugins, end to end', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      reply: supportModel as never,
      runnerEnv: {
        SPINDLE_PLUGINS: 'examples/plugins/order-lookup.js,examples/plugins/calculator.js',
        SPINDLE_MODEL_PRICES: '{"compatible:support-model":{"inputPerMTok":2,"outputPerMTok":8}}',
      },
    });
    const put = await stack.api(`/v1/workflows/support`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        kind: 'graph',
        nodes: [
          {
            id: 'support',
            type: 'agent',
            model: 'compatible:support-model',
            instructions: 'You answer questions about orders.',
            prompt: '{{input.question}}',
            tools: ['lookup_order', 'calculator'],
            max_turns: 6,
            output_key: 'answer',
          },
        ],
      }),
    });
    expect(put.status).toBe(201);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('runs a three-round tool loop where round two fails and the model recovers, and the trace shows each call', async () => {
    const { frames } = await stack.sse(`/v1/workflows/support/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: { question: 'Where are orders A-1002 and A-9999, and what do two A-1002s cost?' } }),
    });
    const events = frames.filter((f) => f.id !== undefined).map((f) => JSON.parse(f.data) as RunEvent);
    expect(events.at(-1)).toMatchObject({ type: 'run.completed', data: { output: { answer: expect.stringContaining('119.6') } } });
    expect(stack.fake.callCount).toBe(4);

    // The provider saw the failure as a tool result and the tools as function specs.
    const third = stack.fake.calls[2].body as {
      messages: Array<{ role: string; content?: string; tool_call_id?: string }>;
      tools?: Array<{ function: { name: string } }>;
    };
    expect(third.messages.find((m) => m.tool_call_id === 'call_2')?.content).toContain('order A-9999 not found');
    expect(third.tools?.map((t) => t.function.name).sort()).toEqual(['calculator', 'lookup_order']);

    const trace = (await (await stack.api(`/v1/runs/${events[0].runId}/trace`)).json()) as RunTrace;
    const agent = trace.spans.find((s) => s.kind === 'node');
    expect(agent).toMatchObject({ nodeId: 'support', status: 'completed' });
    const calls = trace.spans.filter((s) => s.kind === 'model' || s.kind === 'tool').sort((a, b) => (a.startSeq ?? 0) - (b.startSeq ?? 0));
    expect(calls.map((s) => `${s.kind}:${s.status}`)).toEqual([
      'model:completed',
      'tool:completed',
      'model:completed',
      'tool:failed',
      'model:completed',
      'tool:completed',
      'model:completed',
    ]);
    const tools = calls.filter((s) => s.kind === 'tool');
    expect(tools.map((s) => s.input)).toEqual([{ orderId: 'A-1002' }, { orderId: 'A-9999' }, { expression: '59.8 * 2' }]);
    expect(tools[0].output).toMatchObject({ id: 'A-1002', status: 'shipped', carrier: 'DHL' });
    expect(tools[1].error).toMatchObject({ code: 'tool_failed', message: 'order A-9999 not found' });
    expect(tools[2].output).toEqual({ expression: '59.8 * 2', result: 119.6 });
    for (const s of calls) expect(s.parentSpanId).toBe(agent?.spanId);

    // Every model call is priced, each lookup the order service answered reported its cost, and the run's live totals add up.
    const completions = events.filter((e): e is Extract<RunEvent, { type: 'model.completed' }> => e.type === 'model.completed');
    const reports = events.filter((e): e is Extract<RunEvent, { type: 'usage.reported' }> => e.type === 'usage.reported');
    expect(reports.map((e) => [e.data.source.name, e.data.usage.costUsd, e.parentSpanId])).toEqual([
      ['lookup_order', 0.0001, tools[0].spanId],
      ['lookup_order', 0.0001, tools[1].spanId],
    ]);
    expect(trace.spans.filter((s) => s.kind === 'custom').map((s) => [s.nodeType, s.output])).toEqual([
      ['order.looked_up', { orderId: 'A-1002', status: 'shipped' }],
    ]);
    const cost = [...completions, ...reports].reduce((sum, e) => sum + (e.data.usage.costUsd ?? 0), 0);
    expect(completions.at(-1)?.data.runUsage?.costUsd).toBeCloseTo(cost, 9);
    expect(trace.run.usage.costUsd).toBeCloseTo(cost, 9);
    expect(trace.run.usage.totalTokens).toBe(completions.reduce((n, e) => n + e.data.usage.totalTokens, 0));
  });

  const runToEnd = (name: string, definition: unknown) => saveAndStream(stack, name, definition, 'one two three four');

  it('ends a run that breaks its token budget with run_budget_exceeded, before the next node starts', async () => {
    const events = await runToEnd('budgeted', {
      kind: 'graph',
      budget: { maxTotalTokens: 5 },
      nodes: [
        { id: 'first', type: 'llm', model: 'offline:echo', prompt: '{{input}}' },
        { id: 'second', type: 'llm', model: 'offline:echo', prompt: '{{output}}' },
      ],
      edges: [{ from: 'first', to: 'second' }],
    });
    expect(events.at(-1)).toMatchObject({
      type: 'run.failed',
      data: { error: { code: 'run_budget_exceeded', nodeId: 'second' }, usage: { totalTokens: 8 } },
    });
    expect(events.some((e) => e.type === 'node.started' && e.nodeId === 'second')).toBe(false);
    const summary = (await (await stack.api(`/v1/runs/${events[0].runId}`)).json()) as {
      status: string;
      error: { code: string };
    };
    expect(summary).toMatchObject({ status: 'failed', error: { code: 'run_budget_exceeded' } });
  });

  it('ends a run whose node outlives its timeout with node_timeout', async () => {
    const events = await runToEnd('too-slow', {
      kind: 'graph',
      nodes: [{ id: 'wait', type: 'function', function: 'sleep', args: { ms: 60_000 }, timeout_ms: 200 }],
    });
    expect(events.at(-2)).toMatchObject({ type: 'node.failed', nodeId: 'wait', data: { error: { code: 'node_timeout' } } });
    expect(events.at(-1)).toMatchObject({ type: 'run.failed', data: { error: { code: 'node_timeout', nodeId: 'wait' } } });
  });

  it('runs three specialists in a fork, each with its input and output in the trace, and rolls usage up per branch', async () => {
    const specialist = (id: string, topic: string) => ({
      nodes: [{ id, type: 'llm', model: 'offline:echo', prompt: `As the ${topic} specialist: {{input}}`, output_key: 'opinion' }],
    });
    const events = await runToEnd('specialists', {
      kind: 'graph',
      nodes: [
        {
          id: 'panel',
          type: 'fork',
          output_key: 'opinions',
          result_key: 'opinion',
          branches: {
            billing: specialist('billing_agent', 'billing'),
            shipping: specialist('shipping_agent', 'shipping'),
            returns: specialist('returns_agent', 'returns'),
          },
        },
        { id: 'wrap_up', type: 'set', values: { summary: '{{opinions.billing}} | {{opinions.shipping}} | {{opinions.returns}}' } },
      ],
      edges: [{ from: 'panel', to: 'wrap_up' }],
    });
    expect(events.at(-1)).toMatchObject({
      type: 'run.completed',
      data: { output: { summary: expect.stringContaining('As the returns specialist: one two three four') } },
    });
    const trace = (await (await stack.api(`/v1/runs/${events[0].runId}/trace`)).json()) as RunTrace;
    const agents = trace.spans.filter((s) => s.kind === 'node' && s.nodeId?.endsWith('_agent'));
    expect(agents.map((s) => [s.nodeId, s.branchId, s.path]).sort()).toEqual([
      ['billing_agent', 'billing', 'root/panel[billing]/billing_agent'],
      ['returns_agent', 'returns', 'root/panel[returns]/returns_agent'],
      ['shipping_agent', 'shipping', 'root/panel[shipping]/shipping_agent'],
    ]);
    for (const span of agents) {
      const topic = span.branchId as string;
      expect(span.input).toMatchObject({ prompt: `As the ${topic} specialist: one two three four` });
      expect(span.output).toEqual({ opinion: `As the ${topic} specialist: one two three four` });
    }
    expect(Object.keys(trace.rollups.byBranch).sort()).toEqual(['billing', 'returns', 'shipping']);
    expect(trace.rollups.byBranch.billing).toMatchObject({ calls: 1, outputTokens: 8 });
    expect(trace.spans.find((s) => s.nodeId === 'panel' && s.kind === 'node')?.output).toMatchObject({
      opinions: { billing: expect.any(String), shipping: expect.any(String), returns: expect.any(String) },
    });
  });

  it('runs a loop that re-queries with an updated query between two retrievals, each round its own spans', async () => {
    const events = await runToEnd('requery', {
      kind: 'graph',
      nodes: [
        { id: 'start', type: 'set', values: { query: '2 * 3' } },
        {
          id: 'search',
          type: 'loop',
          max_steps: 4,
          until: 'found.result > 10.0',
          body: {
            nodes: [
              { id: 'retrieve', type: 'tool', tool: 'calculator', args: { expression: '{{query}}' }, output_key: 'found' },
              { id: 'enough', type: 'condition', expression: 'found.result > 10.0' },
              { id: 'requery', type: 'llm', model: 'offline:echo', prompt: '{{query}} * 2', output_key: 'query' },
            ],
            edges: [
              { from: 'retrieve', to: 'enough' },
              { from: 'enough', to: 'requery', handle: 'false' },
            ],
          },
        },
      ],
      edges: [{ from: 'start', to: 'search' }],
    });
    expect(events.at(-1)).toMatchObject({ type: 'run.completed', data: { output: { query: '2 * 3 * 2', found: { result: 12 } } } });
    const trace = (await (await stack.api(`/v1/runs/${events[0].runId}/trace`)).json()) as RunTrace;
    const retrievals = trace.spans.filter((s) => s.kind === 'tool');
    expect(retrievals.map((s) => [s.input, s.iteration, s.path])).toEqual([
      [{ expression: '2 * 3' }, 1, 'root/search[1]/retrieve'],
      [{ expression: '2 * 3 * 2' }, 2, 'root/search[2]/retrieve'],
    ]);
    const requery = trace.spans.find((s) => s.kind === 'node' && s.nodeId === 'requery');
    expect(requery).toMatchObject({ iteration: 1, input: { prompt: '2 * 3 * 2' }, output: { query: '2 * 3 * 2' } });
    expect(events.filter((e) => e.type === 'loop.iteration').map((e) => e.data)).toEqual([
      { iteration: 1, maxSteps: 4 },
      { iteration: 2, maxSteps: 4 },
    ]);
  });
});
