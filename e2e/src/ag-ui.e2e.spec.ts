import { HttpAgent } from '@ag-ui/client';
import { EventSchema } from '@ag-ui/core/schemas';
import { eventually, metricValue, providerGate, startStack, type Stack } from '@spindle/testing';
import { heartbeatWatch } from './heartbeats';

/**
 * Issue 16: AG-UI with the official client (`@ag-ui/client`'s HttpAgent, which verifies the
 * stream's order) and every event checked against `@ag-ui/core`'s schemas.
 */

const support = {
  kind: 'graph',
  nodes: [
    { id: 'prepare', type: 'set', values: { topic: 'orders' } },
    {
      id: 'support',
      type: 'agent',
      model: 'offline:script',
      prompt: '{{input}}',
      tools: ['calculator'],
      output_key: 'answer',
      script: [{ calls: [{ tool: 'calculator', args: { expression: '59.8 * 2' } }] }, { answer: 'Two of them cost 119.6 EUR.' }],
    },
  ],
  edges: [{ from: 'prepare', to: 'support' }],
};
const confirm = {
  kind: 'graph',
  nodes: [
    { id: 'ask', type: 'human', prompt: 'Book the table?', form: 'boolean' },
    { id: 'done', type: 'set', values: { booked: true } },
  ],
  edges: [{ from: 'ask', to: 'done' }],
};

const refund = {
  kind: 'graph',
  nodes: [
    {
      id: 'refunds',
      type: 'agent',
      model: 'offline:script',
      prompt: '{{input}}',
      tools: ['calculator'],
      approval: true,
      output_key: 'answer',
      script: [{ calls: [{ tool: 'calculator', args: { expression: '40 * 1' } }] }, { answer: 'Refunded 40 EUR.' }],
    },
  ],
};

const thinker = {
  kind: 'graph',
  nodes: [{ id: 'think', type: 'agent', model: 'compatible:fake-model', prompt: '{{input}}', stream: true, output_key: 'answer' }],
};
const pal = {
  kind: 'graph',
  nodes: [{ id: 'pal', type: 'agent', model: 'compatible:fake-model', prompt: '{{input}}', memory_key: 'messages', output_key: 'answer' }],
};
const REASONING = 'Two and two make four.';
const ANSWER = 'It is four, of course.';

type AnyEvent = { type: string } & Record<string, unknown>;

describe('AG-UI: a workflow as an agent the AG-UI client runs', () => {
  let stack: Stack;
  const halfway = providerGate();
  let released: AnyEvent | undefined;

  const agentFor = (name: string, threadId: string, text: string) =>
    new HttpAgent({
      url: `${stack.gatewayUrl}/v1/ag-ui/${name}`,
      headers: { authorization: `Bearer ${stack.adminKey}` },
      threadId,
      initialMessages: [{ id: `${threadId}-u1`, role: 'user', content: text }],
    });
  /** Runs the agent, keeping every event (each checked against the protocol's schema). */
  const run = async (agent: HttpAgent, parameters: Parameters<HttpAgent['runAgent']>[0] = {}, onEvent?: (event: AnyEvent) => void) => {
    const events: AnyEvent[] = [];
    const result = await agent.runAgent(parameters, {
      onEvent: ({ event }) => {
        expect(EventSchema.safeParse(event).error).toBeUndefined();
        events.push(event as never);
        onEvent?.(event as never);
      },
    });
    return { result, events, types: events.map((e) => e.type) };
  };

  beforeAll(async () => {
    stack = await startStack({
      serviceEnv: (name): Record<string, string> => (name === 'runner' ? { SPINDLE_PLUGINS: 'examples/plugins/calculator.js' } : {}),
    });
    // Five chunks of reasoning and two words of the answer, then the provider waits for the test.
    stack.fake.reply = (body) => {
      const said = (body.messages ?? []).filter((m) => m.role === 'user').map((m) => String(m.content));
      if (!said.includes('What is two and two?')) return { text: `You said: ${said.join(' | ')}` };
      return { reasoning: REASONING, text: ANSWER, pauseAfter: { chunks: 7, until: halfway.passed()! } };
    };
    for (const [name, definition] of Object.entries({ support, confirm, refund, thinker, pal }))
      expect((await stack.api(`/v1/workflows/${name}`, { method: 'PUT', body: JSON.stringify(definition) })).status).toBe(201);
  });
  afterEach(() => halfway.release());
  afterAll(async () => {
    await stack?.stop();
  });

  it('streams steps, the tool call and its result, the answer as a message, and the state, ending with the output', async () => {
    const agent = agentFor('support', 'thread-1', 'What do two cost?');
    const { result, events, types } = await run(agent, { runId: 'run-1' });
    expect(types[0]).toBe('RUN_STARTED');
    expect(events[0]).toMatchObject({ threadId: 'thread-1', runId: 'run-1' });
    expect(types.at(-1)).toBe('RUN_FINISHED');
    expect(events.at(-1)).toMatchObject({ outcome: { type: 'success' }, result: { answer: 'Two of them cost 119.6 EUR.' } });
    expect(types.filter((t) => t.startsWith('STEP_'))).toEqual(['STEP_STARTED', 'STEP_FINISHED', 'STEP_STARTED', 'STEP_FINISHED']);
    expect(types.filter((t) => t.startsWith('TOOL_CALL_'))).toEqual([
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
    ]);
    expect(events.find((e) => e.type === 'TOOL_CALL_START')).toMatchObject({ toolCallName: 'calculator' });
    expect(JSON.parse(String(events.find((e) => e.type === 'TOOL_CALL_RESULT')?.content))).toMatchObject({
      expression: '59.8 * 2',
      result: 119.6,
    });
    // The client folded the stream: the answer is a message, the state the run's.
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Two of them cost 119.6 EUR.' });
    expect(agent.state).toMatchObject({ input: 'What do two cost?', topic: 'orders', answer: 'Two of them cost 119.6 EUR.' });
    expect(result.result).toMatchObject({ answer: 'Two of them cost 119.6 EUR.' });
  });

  it('interrupts for a person, and the next run resumes it with the answer', async () => {
    const agent = agentFor('confirm', 'thread-2', 'a table for two');
    const first = await run(agent, { runId: 'run-2a' });
    expect(first.events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: {
        type: 'interrupt',
        interrupts: [{ reason: 'input', message: 'Book the table?', metadata: { form: { kind: 'boolean' } } }],
      },
    });
    expect(agent.pendingInterrupts).toHaveLength(1);
    const interruptId = agent.pendingInterrupts[0]!.id;
    const second = await run(agent, { runId: 'run-2b', resume: [{ interruptId, status: 'resolved', payload: true }] });
    expect(second.events[0]).toMatchObject({ type: 'RUN_STARTED', runId: 'run-2b' });
    expect(second.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' }, result: { booked: true } });
    expect(agent.pendingInterrupts).toEqual([]);
  });

  it('resumes a tool approval with true: the call it showed is approved and runs, and the run ends', async () => {
    const agent = agentFor('refund', 'thread-2t', 'refund forty');
    const first = await run(agent, { runId: 'run-2t' });
    expect(first.events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: { type: 'interrupt', interrupts: [{ reason: 'tool_approval' }] },
    });
    const interruptId = agent.pendingInterrupts[0]!.id;
    const second = await run(agent, { runId: 'run-2u', resume: [{ interruptId, status: 'resolved', payload: true }] });
    expect(second.types).not.toContain('RUN_ERROR');
    expect(second.events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: { type: 'success' },
      result: { answer: 'Refunded 40 EUR.' },
    });
    expect(second.events.find((e) => e.type === 'TOOL_CALL_RESULT')).toBeDefined();
  });

  it('streams the reasoning and the answer as the model says them, and the whole of both by the end', async () => {
    const agent = agentFor('thinker', 'thread-3', 'What is two and two?');
    halfway.hold();
    // The provider is half-way through the answer until the client has seen its first piece.
    const { events, types } = await run(agent, { runId: 'run-3' }, (event) => {
      if (event.type === 'TEXT_MESSAGE_CONTENT' && !released) {
        released = event;
        halfway.release();
      }
    });
    expect(types.filter((t) => t.startsWith('REASONING_'))).toEqual([
      'REASONING_START',
      'REASONING_MESSAGE_START',
      ...types.filter((t) => t === 'REASONING_MESSAGE_CONTENT'),
      'REASONING_MESSAGE_END',
      'REASONING_END',
    ]);
    const contents = (type: string) => events.filter((e) => e.type === type).map((e) => String(e.delta));
    expect(contents('REASONING_MESSAGE_CONTENT').join('')).toBe(REASONING);
    expect(contents('TEXT_MESSAGE_CONTENT').join('')).toBe(ANSWER);
    // Said as it came: the first piece reached the client while the provider still held the rest.
    expect(ANSWER.startsWith(String(released?.delta))).toBe(true);
    expect(String(released?.delta).length).toBeLessThan(ANSWER.length);
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: ANSWER });
  });

  it('keeps a run stream alive with heartbeats while the run is idle, and the official client reads past them', async () => {
    const watch = heartbeatWatch();
    const agent = new HttpAgent({
      url: `${stack.gatewayUrl}/v1/ag-ui/thinker`,
      headers: { authorization: `Bearer ${stack.adminKey}` },
      threadId: 'thread-6',
      initialMessages: [{ id: 'thread-6-u1', role: 'user', content: 'What is two and two?' }],
      fetch: watch.fetch,
    });
    halfway.hold();
    const running = run(agent, { runId: 'run-6' });
    // The provider holds the answer half-way: nothing happens on the run until a heartbeat has crossed the stream.
    await eventually(async () => expect(watch.seen()).toBe(true), 600);
    halfway.release();
    const { events } = await running;
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: ANSWER });
  });

  it('stops following the run when the client leaves, and the run goes on without it', async () => {
    halfway.hold();
    const leaving = new AbortController();
    const res = await fetch(`${stack.gatewayUrl}/v1/ag-ui/thinker`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${stack.adminKey}` },
      body: JSON.stringify({
        threadId: 'thread-5',
        runId: 'run-5',
        messages: [{ id: 'u5', role: 'user', content: 'What is two and two?' }],
      }),
      signal: leaving.signal,
    });
    // Read until the answer has begun: the provider holds the rest, so the run is in the model.
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('TEXT_MESSAGE_CONTENT')) seen += new TextDecoder().decode((await reader.read()).value);
    const { runs } = (await (await stack.api('/v1/runs?workflow=thinker')).json()) as { runs: Array<{ runId: string; status: string }> };
    const runId = runs[0]!.runId;
    // The runs the gateway follows live: this one, while its client is there.
    const readers = async () => {
      const gateway = stack.processes.find((p) => p.name === 'gateway')!;
      return metricValue(await (await fetch(`http://127.0.0.1:${gateway.port}/metrics`)).text(), 'spindle_live_feeds');
    };
    expect(await readers()).toBe(1);
    leaving.abort();
    await eventually(async () => expect(await readers()).toBe(0), 200);
    expect((await (await stack.api(`/v1/runs/${runId}`)).json()) as { status: string }).toMatchObject({ status: 'running' });
    halfway.release();
    await eventually(
      async () =>
        expect((await (await stack.api(`/v1/runs/${runId}`)).json()) as { status: string }).toMatchObject({ status: 'completed' }),
      200,
    );
  });

  it('continues an AG-UI thread on a Spindle thread: the conversation carries over, the client’s state edits reach the run', async () => {
    const agent = agentFor('pal', 'thread-4', 'My name is Ada.');
    await run(agent, { runId: 'run-4a' });
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'You said: My name is Ada.' });
    agent.addMessage({ id: 'thread-4-u2', role: 'user', content: 'What is my name?' });
    agent.setState({ ...agent.state, mood: 'curious' });
    const second = await run(agent, { runId: 'run-4b' });
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'You said: My name is Ada. | What is my name?' });
    expect(second.events.find((e) => e.type === 'STATE_SNAPSHOT')).toMatchObject({ snapshot: { mood: 'curious' } });
    // One Spindle thread for the AG-UI thread, holding both runs (and the state edit between them).
    const { threads } = (await (await stack.api('/v1/threads')).json()) as {
      threads: Array<{ threadId: string; metadata: { agUiThreadId?: string } }>;
    };
    const thread = threads.filter((t) => t.metadata.agUiThreadId === 'thread-4');
    expect(thread).toHaveLength(1);
    const { runs } = (await (await stack.api(`/v1/threads/${thread[0]!.threadId}/runs`)).json()) as { runs: Array<{ status: string }> };
    expect(runs.filter((r) => r.status === 'completed').length).toBeGreaterThanOrEqual(2);
  });

  it('answers what it cannot run with RUN_ERROR in the stream, and a workflow that is not there with 404', async () => {
    const post = (name: string, body: unknown) =>
      fetch(`${stack.gatewayUrl}/v1/ag-ui/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${stack.adminKey}` },
        body: JSON.stringify(body),
      });
    const frames = async (res: Response) =>
      (await res.text())
        .split('\n\n')
        .filter((f) => f.startsWith('data: '))
        .map((f) => JSON.parse(f.slice(6)) as { type: string; code?: string });
    const notInput = await frames(await post('support', { messages: 'nope' }));
    expect(notInput).toEqual([expect.objectContaining({ type: 'RUN_ERROR', code: 'validation_failed' })]);
    const base = { threadId: 't', runId: 'r', messages: [] };
    const unknownInterrupt = await frames(
      await post('confirm', { ...base, resume: [{ interruptId: 'nope:req', status: 'resolved', payload: true }] }),
    );
    expect(unknownInterrupt.map((e) => [e.type, e.code])).toEqual([
      ['RUN_STARTED', undefined],
      ['RUN_ERROR', 'request_not_found'],
    ]);
    for (const events of [notInput, unknownInterrupt]) for (const e of events) expect(EventSchema.safeParse(e).error).toBeUndefined();
    expect((await post('no-such-workflow', base)).status).toBe(404);
  });
});
