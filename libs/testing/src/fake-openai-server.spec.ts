import { FakeOpenAIServer } from './fake-openai-server';

/** Plain fetch, so these tests pin the wire format independently of any SDK. */
async function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
    body: JSON.stringify(body),
  });
}

/** The parts of OpenAI responses these tests look at. */
interface Completion {
  object?: string;
  choices: Array<{
    index: number;
    message?: unknown;
    delta?: { content?: string; tool_calls?: ToolCallDelta[] };
    finish_reason?: string | null;
  }>;
  usage?: unknown;
}
interface ToolCallDelta {
  index: number;
  id?: string;
  type?: string;
  function: { name?: string; arguments: string };
}
interface ErrorBody {
  error: { message: string };
}

/** The `data:` payloads of an SSE body, in order. */
async function sseData(res: Response): Promise<string[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice('data: '.length));
}

describe('FakeOpenAIServer', () => {
  const server = new FakeOpenAIServer();
  const messages = [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: 'first' },
    { role: 'user', content: [{ type: 'text', text: 'hello world' }] },
  ];

  beforeAll(() => server.start());
  afterAll(() => server.stop());

  it('answers a non-streaming request with a chat.completion echoing the last user message', async () => {
    const res = await post(`${server.baseUrl}/chat/completions`, { model: 'm', messages });
    const json = (await res.json()) as Completion;

    expect(res.status).toBe(200);
    expect(json.object).toBe('chat.completion');
    expect(json.choices[0]).toEqual({ index: 0, message: { role: 'assistant', content: 'echo: hello world' }, finish_reason: 'stop' });
    // default usage: whitespace words of all messages (2+1+2) and of the reply (3)
    expect(json.usage).toEqual({ prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 });
  });

  it('streams SSE word chunks, then the usage chunk only when include_usage is set, then [DONE]', async () => {
    const withUsage = await sseData(
      await post(`${server.baseUrl}/chat/completions`, { model: 'm', messages, stream: true, stream_options: { include_usage: true } }),
    );
    const without = await sseData(await post(`${server.baseUrl}/chat/completions`, { model: 'm', messages, stream: true }));

    const chunks = withUsage.slice(0, -1).map((d) => JSON.parse(d) as Completion);
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    expect(text).toBe('echo: hello world');
    expect(chunks.filter((c) => c.choices[0]?.delta?.content !== undefined)).toHaveLength(3);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } });
    expect(withUsage.at(-1)).toBe('[DONE]');
    expect(
      without
        .slice(0, -1)
        .map((d) => JSON.parse(d) as Completion)
        .some((c) => c.usage !== undefined),
    ).toBe(false);
    expect(without.at(-1)).toBe('[DONE]');
  });

  it('records every call with its path, body and headers', async () => {
    const before = server.callCount;
    await post(`${server.baseUrl.replace(/\/v1$/, '')}/chat/completions`, { model: 'root-path', messages });

    expect(server.callCount).toBe(before + 1);
    const call = server.calls.at(-1);
    expect(call?.path).toBe('/chat/completions');
    expect(call?.body.model).toBe('root-path');
    expect(call?.headers.authorization).toBe('Bearer t');
  });

  it('answers unknown routes with 404', async () => {
    const res = await post(`${server.baseUrl}/responses`, {});

    expect(res.status).toBe(404);
    expect(((await res.json()) as ErrorBody).error.message).toContain('/v1/responses');
  });
});

describe('FakeOpenAIServer scripted replies', () => {
  it('returns a scripted HTTP error with an OpenAI-style error body', async () => {
    const server = new FakeOpenAIServer(() => ({ text: '', status: 429, error: 'slow down' }));
    await server.start();
    try {
      const res = await post(`${server.baseUrl}/chat/completions`, { model: 'm', messages: [] });

      expect(res.status).toBe(429);
      expect(((await res.json()) as ErrorBody).error.message).toBe('slow down');
    } finally {
      await server.stop();
    }
  });

  it('sends an error event after the text when a stream is scripted to fail', async () => {
    const server = new FakeOpenAIServer((body) => ({
      text: `model ${body.model}`,
      error: 'overloaded',
      usage: { prompt_tokens: 1, completion_tokens: 2 },
    }));
    await server.start();
    try {
      const data = await sseData(await post(`${server.baseUrl}/chat/completions`, { model: 'x', messages: [], stream: true }));

      expect(JSON.parse(data.at(-1) ?? '{}')).toEqual({ error: { message: 'overloaded', type: 'server_error', code: null } });
      expect(data).not.toContain('[DONE]');
    } finally {
      await server.stop();
    }
  });

  it('stops promptly even while a delayed reply is still pending', async () => {
    const server = new FakeOpenAIServer(() => ({ text: 'never', delayMs: 60_000 }));
    await server.start();
    const pending = post(`${server.baseUrl}/chat/completions`, { model: 'm', messages: [] }).catch((e: unknown) => e);
    while (server.callCount === 0) await new Promise((r) => setTimeout(r, 5));

    await server.stop();

    // the connection was closed, not answered (fetch's TypeError comes from another realm than Jest's)
    expect(await pending).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
  });
});

describe('FakeOpenAIServer scripted tool calls', () => {
  const toolCalls = [
    { id: 'call_weather', name: 'get_weather', arguments: { city: 'Paris', days: 2 } },
    { name: 'get_time', arguments: {} },
  ];
  const server = new FakeOpenAIServer(() => ({ text: '', toolCalls, usage: { prompt_tokens: 20, completion_tokens: 9 } }));

  beforeAll(() => server.start());
  afterAll(() => server.stop());

  it('answers with message.tool_calls (arguments as JSON text), null content and finish_reason tool_calls', async () => {
    const json = (await (await post(`${server.baseUrl}/chat/completions`, { model: 'm', messages: [] })).json()) as Completion;

    expect(json.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_weather', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","days":2}' } },
          // an unscripted id is made up from the request number and the call's index
          { id: `call_${server.callCount}_1`, type: 'function', function: { name: 'get_time', arguments: '{}' } },
        ],
      },
      finish_reason: 'tool_calls',
    });
  });

  it('streams each call as a header delta then its arguments in two pieces, then finish and usage', async () => {
    const data = await sseData(
      await post(`${server.baseUrl}/chat/completions`, { model: 'm', messages: [], stream: true, stream_options: { include_usage: true } }),
    );

    const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as Completion);
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    expect(deltas.filter((d) => d.index === 0)).toEqual([
      { index: 0, id: 'call_weather', type: 'function', function: { name: 'get_weather', arguments: '' } },
      { index: 0, function: { arguments: '{"city":"Pari' } },
      { index: 0, function: { arguments: 's","days":2}' } },
    ]);
    const joined = (index: number): string =>
      deltas
        .filter((d) => d.index === index)
        .map((d) => d.function.arguments)
        .join('');
    expect(JSON.parse(joined(1))).toEqual({});
    expect(chunks[0].choices[0].delta).toMatchObject({ role: 'assistant' });
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['tool_calls']);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 } });
    expect(data.at(-1)).toBe('[DONE]');
  });

  it('records the tools and tool messages the client sent', async () => {
    const tools = [
      { type: 'function', function: { name: 'get_time', description: 'now', parameters: { type: 'object', properties: {} } } },
    ];
    const messages = [
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_time', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: '{"now":"noon"}' },
    ];
    await post(`${server.baseUrl}/chat/completions`, { model: 'm', messages, tools });

    expect(server.calls.at(-1)?.body.tools).toEqual(tools);
    expect(server.calls.at(-1)?.body.messages).toEqual(messages);
  });
});

describe('FakeOpenAIServer text with tool calls', () => {
  it('streams the text first and keeps it as the message content', async () => {
    const server = new FakeOpenAIServer(() => ({ text: 'Let me check.', toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] }));
    await server.start();
    try {
      const json = (await (await post(`${server.baseUrl}/chat/completions`, { model: 'm', messages: [] })).json()) as Completion;
      const data = await sseData(await post(`${server.baseUrl}/chat/completions`, { model: 'm', messages: [], stream: true }));

      expect(json.choices[0].message).toMatchObject({ content: 'Let me check.', tool_calls: [{ function: { name: 'lookup' } }] });
      const deltas = data.slice(0, -1).map((d) => (JSON.parse(d) as Completion).choices[0]?.delta);
      expect(deltas.map((d) => d?.content ?? (d?.tool_calls ? 'CALL' : undefined)).filter(Boolean)).toEqual([
        'Let ',
        'me ',
        'check.',
        'CALL',
        'CALL',
        'CALL',
      ]);
    } finally {
      await server.stop();
    }
  });
});
