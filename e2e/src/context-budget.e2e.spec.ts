import type { RunEvent, RunTrace, ThreadRunAccepted, ThreadRuns, ThreadState } from '@spindle/contracts';
import { countTokens } from '@spindle/engine';
import { eventually, startStack, type FakeOpenAIReply, type FakeOpenAIRequestBody, type Stack } from '@spindle/testing';

const BUDGET = 4_000;
type WireMessage = { role: string; content?: unknown; tool_calls?: Array<{ function: { name: string; arguments: string } }> };

/** Offered the export tool, calls it once (its result is ~220 KB), then answers; offered no tool, answers at once. */
function analyst(body: FakeOpenAIRequestBody): FakeOpenAIReply {
  if (!body.tools?.length) return { text: `Noted: ${String((body.messages ?? []).at(-1)?.content)}` };
  const results = (body.messages ?? []).filter((m) => m.role === 'tool').length;
  if (results === 0)
    return { text: '', toolCalls: [{ id: 'call_export', name: 'export_orders', arguments: { customer: 'Ada Lovelace', rows: 1_500 } }] };
  return { text: 'Ada has 1,500 orders; most were delivered.' };
}

/** The prompt as the provider received it, counted with the engine's tokenizer and chat framing. */
function wireTokens(body: FakeOpenAIRequestBody): number {
  const text = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content ?? ''));
  return ((body.messages ?? []) as WireMessage[]).reduce(
    (sum, m) =>
      sum +
      3 +
      countTokens(text(m.content)) +
      (m.tool_calls ?? []).reduce((n, c) => n + countTokens(c.function.name) + countTokens(c.function.arguments), 0),
    3,
  );
}

/** 40 turns of earlier conversation, ~2,000 tokens: within the budget alone, far over it with the tool's output. */
const history = Array.from({ length: 40 }, (_, i) => [
  { role: 'user', content: `Earlier question ${i}: how did order H-${100000 + i} go? Please look at its delivery and the invoice.` },
  { role: 'assistant', content: `Order H-${100000 + i} arrived on time and the invoice matched the order total.` },
]).flat();

describe('context budgets, end to end', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ reply: analyst as never, runnerEnv: { SPINDLE_PLUGINS: 'examples/plugins/order-export.js' } });
    const put = await stack.api(`/v1/workflows/analyst`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        kind: 'graph',
        nodes: [
          { id: 'recall', type: 'set', values: { messages: '{{input.history}}' } },
          {
            id: 'analyst',
            type: 'agent',
            model: 'compatible:analyst-model',
            instructions: 'You analyse order histories.',
            prompt: '{{input.question}}',
            tools: ['export_orders'],
            memory_key: 'messages',
            context: { max_input_tokens: BUDGET, strategy: 'sentence' },
            output_key: 'answer',
          },
        ],
        edges: [{ from: 'recall', to: 'analyst' }],
      }),
    });
    expect(put.status).toBe(201);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('cuts a 200 KB tool result and the oldest history to fit, records each cut; the provider gets a prompt in budget', async () => {
    const { frames } = await stack.sse(`/v1/workflows/analyst/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: { question: "Summarise Ada Lovelace's order history.", history } }),
    });
    const events = frames.filter((f) => f.id !== undefined).map((f) => JSON.parse(f.data) as RunEvent);
    expect(events.at(-1)).toMatchObject({
      type: 'run.completed',
      data: { output: { answer: 'Ada has 1,500 orders; most were delivered.' } },
    });

    const cuts = events.filter((e): e is Extract<RunEvent, { type: 'context.truncated' }> => e.type === 'context.truncated');
    // The first call fits; the second, with the tool's output, drops the old turns (cut first) and shortens the result.
    expect(cuts.map((c) => `${c.data.kind}:${c.data.target}`)).toEqual(['history:history', 'tool_result:export_orders']);
    const toolCut = cuts.find((c) => c.data.kind === 'tool_result')!;
    expect(toolCut.data.tokensBefore).toBeGreaterThan(40_000);
    expect(toolCut.data.tokensAfter).toBeLessThan(BUDGET);
    expect(cuts[0].data.droppedMessages).toBeGreaterThan(0);
    // Each cut comes before the call it shaped.
    for (const cut of cuts) expect(events.find((e) => e.seq > cut.seq && e.type !== 'context.truncated')?.type).toBe('model.started');

    // The provider received prompts within the budget, by the same tokenizer.
    expect(stack.fake.callCount).toBe(2);
    for (const call of stack.fake.calls) expect(wireTokens(call.body)).toBeLessThanOrEqual(BUDGET);
    const toolMessage = (stack.fake.calls[1].body.messages ?? []).find((m) => m.role === 'tool');
    expect(String(toolMessage?.content)).toMatch(/\[… truncated \d+ tokens\]$/);

    // The trace draws every cut as a context span under the agent.
    const runId = events[0].runId;
    const trace = await eventually(async () => {
      const read = (await (await stack.api(`/v1/runs/${runId}/trace`)).json()) as RunTrace;
      expect(read.spans.filter((s) => s.kind === 'context')).toHaveLength(cuts.length);
      return read;
    }, 200);
    const agent = trace.spans.find((s) => s.kind === 'node' && s.nodeId === 'analyst');
    const spans = trace.spans.filter((s) => s.kind === 'context');
    expect(spans).toHaveLength(cuts.length);
    for (const span of spans)
      expect(span).toMatchObject({ parentSpanId: agent?.spanId, status: 'completed', nodeType: expect.any(String) });
    expect(spans.find((s) => s.nodeType === 'tool_result')).toMatchObject({
      input: { kind: 'tool_result', target: 'export_orders', strategy: 'sentence' },
      output: { tokensBefore: toolCut.data.tokensBefore, tokensAfter: toolCut.data.tokensAfter },
    });
  });

  it("compacts a thread's conversation across its runs into a model-written summary, and the trace shows it", async () => {
    const chat = {
      kind: 'graph',
      nodes: [
        {
          id: 'assistant',
          type: 'agent',
          model: 'compatible:analyst-model',
          prompt: '{{input}}',
          memory_key: 'messages',
          memory: { max_messages: 4, summarize: { model: 'offline:echo' } },
          output_key: 'answer',
        },
      ],
    };
    expect((await stack.api('/v1/workflows/chat', { method: 'PUT', body: JSON.stringify(chat) })).status).toBe(201);
    const post = async <T>(path: string, body: unknown) =>
      (await (await stack.api(path, { method: 'POST', body: JSON.stringify(body) })).json()) as T;
    const { threadId } = await post<{ threadId: string }>('/v1/threads', {});
    const runIds: string[] = [];
    for (const input of ['My name is Ada.', 'I like tea.', 'What is my name?']) {
      runIds.push((await post<ThreadRunAccepted>(`/v1/threads/${threadId}/runs`, { workflow: 'chat', input })).runId);
      await eventually(async () => {
        const { runs } = (await (await stack.api(`/v1/threads/${threadId}/runs`)).json()) as ThreadRuns;
        expect(runs.at(-1)?.status).toBe('completed');
      }, 200);
    }
    // The third run holds six messages, over four: the first two turns became one summary message.
    const { state } = (await (await stack.api(`/v1/threads/${threadId}/state`)).json()) as ThreadState;
    const messages = state.messages as Array<{ role: string; content: string }>;
    expect(messages).toHaveLength(3);
    expect(messages[0]).toMatchObject({ role: 'user', content: expect.stringMatching(/^Summary of the earlier conversation: /) });
    expect(messages[0].content).toContain('My name is Ada.');
    expect(messages.slice(1).map((m) => m.content)).toEqual(['What is my name?', 'Noted: What is my name?']);

    const { events } = (await (await stack.api(`/v1/runs/${runIds[2]}/events`)).json()) as { events: RunEvent[] };
    const compacted = events.find((e): e is Extract<RunEvent, { type: 'memory.compacted' }> => e.type === 'memory.compacted');
    expect(compacted?.data).toMatchObject({
      memoryKey: 'messages',
      trigger: 'messages',
      messagesBefore: 6,
      messagesAfter: 3,
      summaryModel: 'offline:echo',
    });
    // The summary was a model call of its own, before the compaction was recorded.
    const summaryCall = events.find((e) => e.type === 'model.started' && (e.data as { model: string }).model === 'offline:echo');
    expect(summaryCall!.seq).toBeLessThan(compacted!.seq);
    await eventually(async () => {
      const trace = (await (await stack.api(`/v1/runs/${runIds[2]}/trace`)).json()) as RunTrace;
      expect(trace.spans.find((s) => s.kind === 'memory')).toMatchObject({
        status: 'completed',
        nodeType: 'messages',
        output: { messagesAfter: 3, summary: compacted!.data.summary, summaryModel: 'offline:echo' },
      });
    }, 200);
  });
});
