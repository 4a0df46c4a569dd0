import { isSpindleError } from '@spindle/contracts';
import type { ChatMessage, ModelRequest, ToolSpec } from '@spindle/engine';
// Test-only use of libs/testing; the workspace tag rules do not yet exempt spec files.
import { FakeOpenAIServer, type FakeOpenAIReply } from '@spindle/testing';
import { createModelPort } from './model-router';

let nextReply: FakeOpenAIReply = { text: '' };
const server = new FakeOpenAIServer(() => nextReply);

beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(() => {
  server.calls.length = 0;
});

const weather: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, units: { type: 'string', enum: ['metric', 'imperial'] } },
    required: ['city'],
  },
};
const clock: ToolSpec = { name: 'get_time', description: 'The current time', inputSchema: { type: 'object', properties: {} } };

const port = () => createModelPort({ compatible: { baseUrl: server.baseUrl } });

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'compatible:m',
    system: 'Use tools.',
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
    tools: [weather, clock],
    stream: false,
    signal: new AbortController().signal,
    ...overrides,
  };
}

describe.each([false, true])('tool calling through compatible: (stream: %s)', (stream) => {
  it('offers the tools as OpenAI function tools and returns the scripted calls with parsed arguments, in one request', async () => {
    nextReply = {
      text: '',
      toolCalls: [
        { id: 'call_w', name: 'get_weather', arguments: { city: 'Paris', units: 'metric' } },
        { id: 'call_t', name: 'get_time', arguments: {} },
      ],
    };
    const deltas: string[] = [];

    const result = await port().generate(request({ stream, onDelta: (d) => deltas.push(d) }));

    expect(result.toolCalls).toEqual([
      { id: 'call_w', name: 'get_weather', arguments: { city: 'Paris', units: 'metric' } },
      { id: 'call_t', name: 'get_time', arguments: {} },
    ]);
    expect(result.text).toBe('');
    expect(result.finishReason).toBe('tool-calls');
    expect(deltas).toEqual([]);
    // no execute, one step: the port never answers a call itself and never calls the model again
    expect(server.calls).toHaveLength(1);
    expect(server.calls[0].body.tools).toEqual([
      { type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: weather.inputSchema } },
      { type: 'function', function: { name: 'get_time', description: 'The current time', parameters: clock.inputSchema } },
    ]);
  });

  it('returns text said before the calls as text (and deltas when streaming)', async () => {
    nextReply = { text: 'Let me check.', toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: { city: 'Oslo' } }] };
    const deltas: string[] = [];

    const result = await port().generate(request({ stream, onDelta: (d) => deltas.push(d) }));

    expect(result.text).toBe('Let me check.');
    expect(deltas).toEqual(stream ? ['Let ', 'me ', 'check.'] : []);
    expect(result.toolCalls).toEqual([{ id: 'call_w', name: 'get_weather', arguments: { city: 'Oslo' } }]);
  });

  it('sends the assistant calls and tool results back as assistant.tool_calls and role tool messages', async () => {
    nextReply = { text: 'It is 21°C in Paris.' };
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'call_w', name: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'call_t', name: 'get_time', arguments: {} },
        ],
      },
      { role: 'tool', toolCallId: 'call_w', toolName: 'get_weather', content: '{"tempC":21}' },
      { role: 'tool', toolCallId: 'call_t', toolName: 'get_time', content: '{"error":"clock unavailable"}', isError: true },
    ];

    const result = await port().generate(request({ stream, messages }));

    expect(result).toMatchObject({ text: 'It is 21°C in Paris.', toolCalls: [], finishReason: 'stop' });
    expect(server.calls[0].body.messages).toEqual([
      { role: 'system', content: 'Use tools.' },
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_w', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_t', type: 'function', function: { name: 'get_time', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_w', content: '{"tempC":21}' },
      // OpenAI has no error flag on tool messages: a failure reaches the model as its content
      { role: 'tool', tool_call_id: 'call_t', content: '{"error":"clock unavailable"}' },
    ]);
  });

  it('passes on a call to a tool it was not offered (the engine reports it) without a second request', async () => {
    nextReply = { text: '', toolCalls: [{ id: 'call_x', name: 'launch_rockets', arguments: { count: 3 } }] };

    const result = await port().generate(request({ stream }));

    expect(result.toolCalls).toEqual([{ id: 'call_x', name: 'launch_rockets', arguments: { count: 3 } }]);
    expect(server.calls).toHaveLength(1);
  });

  it('rejects arguments that are not a JSON object as a retryable provider_error', async () => {
    nextReply = { text: '', toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: ['Paris'] }] };

    const error = await port()
      .generate(request({ stream }))
      .catch((e: unknown) => e);

    expect(isSpindleError(error) && error.code).toBe('provider_error');
    expect((error as Error).message).toContain("tool 'get_weather' with arguments that are not a JSON object");
  });
});

describe('tools and offline:echo', () => {
  it('ignores offered tools and echoes the last user message after a tool round', async () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'get_time', arguments: {} }] },
      { role: 'tool', toolCallId: 'c1', toolName: 'get_time', content: 'not json at all' },
    ];

    const result = await createModelPort({}).generate(request({ model: 'offline:echo', messages }));

    expect(result).toMatchObject({ text: 'first question', toolCalls: [], finishReason: 'stop' });
  });
});
