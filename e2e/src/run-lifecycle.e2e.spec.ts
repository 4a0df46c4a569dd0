import type { RunEvent, RunTrace } from '@spindle/contracts';
import { startStack, type SseFrame, type Stack } from '@spindle/testing';

const workflow = {
  kind: 'graph',
  nodes: [
    { id: 'greet', type: 'set', values: { greeting: 'Hello {{input.name}}' } },
    { id: 'count', type: 'function', function: 'word_count', args: { text: '{{greeting}}' } },
    { id: 'long_enough', type: 'condition', expression: 'word_count > 1' },
    {
      id: 'answer',
      type: 'llm',
      model: 'compatible:fake-model',
      system: 'You are terse.',
      prompt: 'Reply to: {{greeting}}',
      stream: true,
      output_key: 'answer',
    },
    { id: 'too_short', type: 'set', values: { answer: 'too short' } },
  ],
  edges: [
    { from: 'greet', to: 'count' },
    { from: 'count', to: 'long_enough' },
    { from: 'long_enough', to: 'answer', handle: 'true' },
    { from: 'long_enough', to: 'too_short', handle: 'false' },
  ],
};

const MODEL_TEXT = 'Hello to you too, Ada. It is a fine day for a walk in the park.';

describe('a run end to end through five service processes', () => {
  let stack: Stack;
  let api: (path: string, init?: RequestInit) => Promise<Response>;
  beforeAll(async () => {
    stack = await startStack({ reply: () => ({ text: MODEL_TEXT, usage: { prompt_tokens: 21, completion_tokens: 16 } }) });
    api = (path, init) =>
      stack.api(path, {
        ...init,
        headers: { 'content-type': 'application/json', ...(init?.headers as Record<string, string>) },
      });
    const saved = await api('/v1/workflows/greeter', { method: 'PUT', body: JSON.stringify(workflow) });
    expect(saved.status).toBe(201);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('serves the graph with layout hints and Mermaid text', async () => {
    const res = await api('/v1/workflows/greeter/graph');
    expect(res.status).toBe(200);
    const graph = (await res.json()) as { version: number; nodes: Array<{ id: string; rank: number }>; edges: unknown[]; mermaid: string };
    expect(graph.version).toBe(1);
    expect(graph.nodes.map((n) => [n.id, n.rank])).toEqual([
      ['greet', 0],
      ['count', 1],
      ['long_enough', 2],
      ['answer', 3],
      ['too_short', 3],
    ]);
    expect(graph.mermaid).toContain('long_enough -->|true| answer');
    expect((await api('/v1/workflows/greeter/graph?version=7')).status).toBe(404);
  });

  let runId: string;
  let streamed: RunEvent[];
  let frames: SseFrame[];

  it('streams the run over SSE: seq 1 names the run, gapless and ordered, tokens inside their node', async () => {
    const res = await stack.sse(`/v1/workflows/greeter/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: { name: 'Ada' } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    frames = res.frames;
    streamed = frames.filter((f) => f.event !== 'token').map((f) => JSON.parse(f.data) as RunEvent);
    runId = streamed[0].runId;
    expect(streamed[0]).toMatchObject({ type: 'run.queued', seq: 1, data: { workflow: { name: 'greeter', version: 1 } } });
    expect(streamed.map((e) => e.seq)).toEqual(streamed.map((_, i) => i + 1));
    expect(frames.filter((f) => f.event !== 'token').map((f) => Number(f.id))).toEqual(streamed.map((e) => e.seq));
    expect(streamed.every((e) => e.runId === runId)).toBe(true);
    expect(streamed.at(-1)).toMatchObject({ type: 'run.completed', data: { output: { answer: MODEL_TEXT, word_count: 2 } } });

    const started = frames.findIndex((f) => f.event === 'node.started' && JSON.parse(f.data).nodeId === 'answer');
    const completed = frames.findIndex((f) => f.event === 'node.completed' && JSON.parse(f.data).nodeId === 'answer');
    const tokenFrames = frames.map((f, i) => ({ f, i })).filter(({ f }) => f.event === 'token');
    expect(tokenFrames.length).toBeGreaterThan(0);
    expect(tokenFrames.every(({ i }) => i > started && i < completed)).toBe(true);
    expect(tokenFrames.map(({ f }) => JSON.parse(f.data).delta).join('')).toBe(MODEL_TEXT);
    expect(tokenFrames.every(({ f }) => JSON.parse(f.data).nodeId === 'answer')).toBe(true);
  });

  it('called the provider once, streaming with usage requested, and recorded that usage', () => {
    expect(stack.fake.callCount).toBe(1);
    const body = stack.fake.calls[0].body as {
      stream?: boolean;
      stream_options?: { include_usage?: boolean };
      model: string;
      messages: Array<{ role: string; content: string }>;
    };
    expect(body).toMatchObject({ model: 'fake-model', stream: true, stream_options: { include_usage: true } });
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Reply to: Hello Ada' },
    ]);
    const model = streamed.find((e) => e.type === 'model.completed');
    expect(model?.data).toMatchObject({
      model: 'compatible:fake-model',
      text: MODEL_TEXT,
      usage: { inputTokens: 21, outputTokens: 16, totalTokens: 37 },
    });
  });

  it('pairs every span by spanId + path: each start has exactly one end', () => {
    const starts = streamed.filter((e) => e.type === 'node.started' || e.type === 'model.started');
    const ends = streamed.filter((e) => ['node.completed', 'node.failed', 'model.completed', 'model.failed'].includes(e.type));
    const key = (e: RunEvent) => `${e.spanId}|${e.path}`;
    expect(new Set(starts.map(key)).size).toBe(starts.length);
    expect(ends.map(key).sort()).toEqual(starts.map(key).sort());
    const modelStart = streamed.find((e) => e.type === 'model.started');
    const answerStart = streamed.find((e) => e.type === 'node.started' && e.nodeId === 'answer');
    expect(modelStart?.parentSpanId).toBe(answerStart?.spanId);
  });

  it('serves the same history as JSON', async () => {
    const res = await api(`/v1/runs/${runId}/events`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { events: RunEvent[]; lastSeq: number; terminal: boolean };
    expect(body.events).toEqual(streamed);
    expect(body).toMatchObject({ lastSeq: streamed.length, terminal: true });
    const after = (await (await api(`/v1/runs/${runId}/events?after=5`)).json()) as { events: RunEvent[] };
    expect(after.events).toEqual(streamed.slice(5));
  });

  it('replays exactly the rest after Last-Event-ID, and nothing after the end', async () => {
    const rest = await stack.sse(`/v1/runs/${runId}/events`, { headers: { 'last-event-id': '7' } });
    expect(rest.frames.map((f) => JSON.parse(f.data) as RunEvent)).toEqual(streamed.slice(7));
    const viaQuery = await stack.sse(`/v1/runs/${runId}/events?after=3`, { headers: { 'last-event-id': '9' } });
    expect(viaQuery.frames.map((f) => Number(f.id))).toEqual(streamed.slice(9).map((e) => e.seq));
  });

  it('serves the trace: the run and its spans, with usage and the state deltas', async () => {
    const res = await api(`/v1/runs/${runId}/trace`);
    expect(res.status).toBe(200);
    const trace = (await res.json()) as RunTrace;
    expect(trace.run).toMatchObject({
      runId,
      status: 'completed',
      workflow: { name: 'greeter', version: 1 },
      usage: { inputTokens: 21, outputTokens: 16, totalTokens: 37 },
      lastSeq: streamed.length,
    });
    const nodeSpans = trace.spans.filter((s) => s.kind === 'node');
    expect(nodeSpans.map((s) => s.nodeId)).toEqual(['greet', 'count', 'long_enough', 'answer']);
    expect(nodeSpans.every((s) => s.status === 'completed' && s.durationMs !== null)).toBe(true);
    expect(nodeSpans.find((s) => s.nodeId === 'count')).toMatchObject({
      input: { function: 'word_count', args: { text: 'Hello Ada' } },
      output: { word_count: 2 },
    });
    const model = trace.spans.find((s) => s.kind === 'model');
    expect(model).toMatchObject({
      model: 'compatible:fake-model',
      usage: { totalTokens: 37 },
      parentSpanId: nodeSpans[3].spanId,
      status: 'completed',
    });

    const summary = (await (await api(`/v1/runs/${runId}`)).json()) as { status: string };
    expect(summary.status).toBe('completed');
    const list = (await (await api(`/v1/runs?workflow=greeter&status=completed`)).json()) as { runs: Array<{ runId: string }> };
    expect(list.runs.map((r) => r.runId)).toContain(runId);
  });

  it('queues with 202 and replays an Idempotency-Key, refusing the same key with another body', async () => {
    const post = (body: unknown) =>
      api('/v1/workflows/greeter/runs', {
        method: 'POST',
        headers: { 'idempotency-key': `key-${stack.namespace}` },
        body: JSON.stringify(body),
      });
    const first = await post({ input: { name: 'Bob' } });
    expect(first.status).toBe(202);
    const accepted = (await first.json()) as { runId: string; location: string; eventsLocation: string };
    expect(first.headers.get('location')).toBe(`/v1/runs/${accepted.runId}`);
    expect(accepted.eventsLocation).toBe(`/v1/runs/${accepted.runId}/events`);
    const again = await post({ input: { name: 'Bob' } });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as { runId: string }).runId).toBe(accepted.runId);
    const other = await post({ input: { name: 'Eve' } });
    expect(other.status).toBe(409);
    expect(other.headers.get('content-type')).toContain('application/problem+json');
    expect(((await other.json()) as { code: string }).code).toBe('idempotency_key_reused');
    const events = await stack.sse(`${accepted.eventsLocation}`);
    expect(events.frames.filter((f) => f.event === 'run.queued')).toHaveLength(1);
    expect(events.frames.at(-1)?.event).toBe('run.completed');
  });

  it('runs a catalog workflow as a subgraph, nested under its node, and refuses missing or cyclic subgraphs', async () => {
    const put = (name: string, definition: unknown) => api(`/v1/workflows/${name}`, { method: 'PUT', body: JSON.stringify(definition) });
    expect((await put('parent', { kind: 'graph', nodes: [{ id: 'delegate', type: 'subgraph', workflow: 'no-such-flow' }] })).status).toBe(
      400,
    );
    expect(
      (await put('child-flow', { kind: 'graph', nodes: [{ id: 'shout', type: 'set', values: { output: '{{input.word}}!' } }] })).status,
    ).toBe(201);
    expect(
      (
        await put('parent', {
          kind: 'graph',
          nodes: [{ id: 'delegate', type: 'subgraph', workflow: 'child-flow', input: { word: '{{input}}' }, output_key: 'said' }],
        })
      ).status,
    ).toBe(201);

    const { frames } = await stack.sse(`/v1/workflows/parent/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"input":"hey"}',
    });
    const events = frames.filter((f) => f.id !== undefined).map((f) => JSON.parse(f.data) as RunEvent);
    expect(events[0].data).toMatchObject({ subgraphs: { 'child-flow': { version: 1 } } });
    expect(events.at(-1)).toMatchObject({ type: 'run.completed', data: { output: { said: 'hey!' } } });
    const delegate = events.find((e) => e.type === 'node.started' && e.nodeId === 'delegate');
    expect(events.find((e) => e.type === 'node.started' && e.nodeId === 'shout')).toMatchObject({
      path: 'root/delegate/shout',
      parentSpanId: delegate?.spanId,
    });

    // child-flow calling parent, which calls child-flow, is refused when saved.
    const cyclic = await put('child-flow', { kind: 'graph', nodes: [{ id: 'back', type: 'subgraph', workflow: 'parent' }] });
    expect(cyclic.status).toBe(400);
    expect((await cyclic.json()) as { code: string; detail: string }).toMatchObject({
      code: 'invalid_definition',
      detail: expect.stringContaining('child-flow → parent → child-flow'),
    });
  });

  it('keeps agents in a catalog that patterns use by reference, resolved into the run', async () => {
    const pattern = { kind: 'sequential', agents: [{ ref: 'drafter' }, { ref: 'polisher' }] };
    const put = (path: string, body: unknown) => api(path, { method: 'PUT', body: JSON.stringify(body) });
    expect((await put('/v1/agents/drafter', { model: 'offline:echo', instructions: 'Draft.' })).status).toBe(201);
    const missing = await put('/v1/workflows/drafting', pattern);
    expect(missing.status).toBe(400);
    expect((await missing.json()) as { errors: unknown[] }).toMatchObject({
      code: 'invalid_definition',
      errors: [{ field: 'agents[1].ref' }],
    });
    expect((await put('/v1/agents/polisher', { model: 'offline:echo' })).status).toBe(201);
    expect((await put('/v1/agents/polisher', { model: 'offline:echo' })).status).toBe(200);
    expect((await put('/v1/agents/bad', { model: 'no-colon' })).status).toBe(400);
    expect((await put('/v1/workflows/drafting', pattern)).status).toBe(201);

    const { frames } = await stack.sse(`/v1/workflows/drafting/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"input":"a short note"}',
    });
    const events = frames.filter((f) => f.id !== undefined).map((f) => JSON.parse(f.data) as RunEvent);
    expect(events[0].data).toMatchObject({
      definition: { kind: 'sequential', agents: [{ name: 'drafter', instructions: 'Draft.' }, { name: 'polisher' }] },
    });
    expect(events.at(-1)).toMatchObject({
      type: 'run.completed',
      data: { output: { drafter: 'a short note', polisher: 'a short note', output: 'a short note' } },
    });
    const agents = (await (await api('/v1/agents')).json()) as { agents: Array<{ name: string; version: number }> };
    expect(agents.agents.map((a) => [a.name, a.version])).toEqual([
      ['drafter', 1],
      ['polisher', 1],
    ]);
  });

  it('carries a payload over 256 KiB through the object store to SSE, JSON history and the trace', async () => {
    const put = await api('/v1/workflows/bulky', {
      method: 'PUT',
      body: JSON.stringify({ kind: 'graph', nodes: [{ id: 'copy', type: 'set', values: { copy: '{{input}}' } }] }),
    });
    expect(put.status).toBe(201);
    const big = 'lorem ipsum '.repeat(30_000);
    const { frames } = await stack.sse(`/v1/workflows/bulky/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: big }),
    });
    const events = frames.filter((f) => f.id !== undefined).map((f) => JSON.parse(f.data) as RunEvent);
    expect(events.at(-1)).toMatchObject({ type: 'run.completed', data: { output: { copy: big } } });
    const stored = await stack.bus.jsm.streams.getMessage(stack.bus.names.eventsStream, {
      last_by_subj: stack.bus.names.eventSubject(events[0].runId),
    });
    expect(stored!.data.length).toBeLessThan(2_000);
    const history = (await (await api(`/v1/runs/${events[0].runId}/events`)).json()) as { events: RunEvent[] };
    expect(history.events).toEqual(events);
    const trace = (await (await api(`/v1/runs/${events[0].runId}/trace`)).json()) as RunTrace;
    expect(trace.spans.find((s) => s.nodeId === 'copy')?.output).toEqual({ copy: big });
  });
});
