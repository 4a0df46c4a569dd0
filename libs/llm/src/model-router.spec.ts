import type { ModelRequest } from '@spindle/engine';
// Test-only use of libs/testing; the workspace tag rules do not yet exempt spec files.
import { FakeOpenAIServer, type FakeOpenAIReply } from '@spindle/testing';
import { createModelPort } from './model-router';

/** Each test scripts the next reply; the server itself lives for the whole file. */
let nextReply: FakeOpenAIReply = { text: '' };
const server = new FakeOpenAIServer(() => nextReply);

beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(() => {
  server.calls.length = 0;
});

function request(model: string, overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model,
    system: 'You are terse.',
    messages: [{ role: 'user', content: 'Say hello' }],
    stream: false,
    signal: new AbortController().signal,
    ...overrides,
  };
}

describe('compatible: provider against an OpenAI-compatible server', () => {
  const port = () => createModelPort({ compatible: { baseUrl: server.baseUrl } });

  it('returns text, usage and finish reason without streaming', async () => {
    nextReply = { text: 'Hello there, friend.', usage: { prompt_tokens: 11, completion_tokens: 7 } };

    const result = await port().generate(request('compatible:llama3:8b'));

    // compatible:* is priced 0 by default: local servers are free unless configured
    expect(result).toEqual({
      text: 'Hello there, friend.',
      usage: { inputTokens: 11, outputTokens: 7, totalTokens: 18, costUsd: 0 },
      finishReason: 'stop',
      responseModel: 'llama3:8b',
      toolCalls: [],
      costUsd: 0,
    });
    expect(server.calls).toHaveLength(1);
    const { body, headers } = server.calls[0];
    // the model part keeps its own colons (Ollama tags)
    expect(body.model).toBe('llama3:8b');
    expect(body.stream).toBeUndefined();
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Say hello' },
    ]);
    expect(headers.authorization).toBeUndefined(); // no key configured, none sent
  });

  it('streams deltas and records usage from the final usage chunk', async () => {
    nextReply = { text: 'one two three four', usage: { prompt_tokens: 13, completion_tokens: 5, total_tokens: 18 } };
    const deltas: string[] = [];

    const result = await port().generate(request('compatible:m', { stream: true, onDelta: (d) => deltas.push(d) }));

    expect(deltas).toEqual(['one ', 'two ', 'three ', 'four']);
    expect(deltas.join('')).toBe(result.text);
    expect(result.usage).toEqual({ inputTokens: 13, outputTokens: 5, totalTokens: 18, costUsd: 0 });
    expect(result.toolCalls).toEqual([]);
    expect(result.finishReason).toBe('stop');
    expect(server.calls[0].body.stream).toBe(true);
    expect(server.calls[0].body.stream_options).toEqual({ include_usage: true });
  });

  it('keeps the reasoning a server shows (reasoning_content), streamed as its own part and whole', async () => {
    nextReply = { reasoning: 'Greet them back.', text: 'Hello there.' };
    const parts: Array<[string, string]> = [];
    const streamed = await port().generate(request('compatible:m', { stream: true, onDelta: (d, part) => parts.push([part, d]) }));
    expect(parts).toEqual([
      ['reasoning', 'Greet '],
      ['reasoning', 'them '],
      ['reasoning', 'back.'],
      ['text', 'Hello '],
      ['text', 'there.'],
    ]);
    expect([streamed.reasoning, streamed.text]).toEqual(['Greet them back.', 'Hello there.']);
    const whole = await port().generate(request('compatible:m'));
    expect([whole.reasoning, whole.text]).toEqual(['Greet them back.', 'Hello there.']);
  });

  it('sends the optional API key as a bearer token', async () => {
    nextReply = { text: 'ok' };
    const keyed = createModelPort({ compatible: { baseUrl: server.baseUrl, apiKey: 'local-key-123' } });

    await keyed.generate(request('compatible:m'));

    expect(server.calls[0].headers.authorization).toBe('Bearer local-key-123');
  });

  it('rejects with the abort reason when aborted mid-stream', async () => {
    nextReply = { text: 'a long answer that will not finish', delayMs: 50 };
    const ac = new AbortController();
    const reason = new Error('node timed out');
    const deltas: string[] = [];

    const run = port().generate(
      request('compatible:m', {
        stream: true,
        signal: ac.signal,
        onDelta: (d) => {
          deltas.push(d);
          ac.abort(reason);
        },
      }),
    );

    await expect(run).rejects.toBe(reason);
    expect(deltas).toEqual(['a ']);
  });

  it('rejects with the abort reason when aborted while waiting for a non-streamed reply', async () => {
    const ac = new AbortController();
    const reason = new Error('run cancelled');
    // Abort once the request has reached the server, which would otherwise answer in a minute.
    const slowServer = new FakeOpenAIServer(() => {
      ac.abort(reason);
      return { text: 'too late', delayMs: 60_000 };
    });
    await slowServer.start();
    try {
      const run = createModelPort({ compatible: { baseUrl: slowServer.baseUrl } }).generate(request('compatible:m', { signal: ac.signal }));

      await expect(run).rejects.toBe(reason);
      expect(slowServer.callCount).toBe(1);
    } finally {
      await slowServer.stop();
    }
  });
});

describe('openai: provider pointed at the fake server', () => {
  const port = () => createModelPort({ openai: { apiKey: 'sk-test-0123456789', baseUrl: server.baseUrl } });

  it('speaks chat completions (not the Responses API) and sends the key', async () => {
    nextReply = { text: 'Hi!', usage: { prompt_tokens: 4, completion_tokens: 1 } };

    const result = await port().generate(request('openai:gpt-4o-mini'));

    // default table: gpt-4o-mini at $0.15 / $0.60 per million tokens
    const cost = (4 * 0.15 + 1 * 0.6) / 1e6;
    expect(result).toEqual({
      text: 'Hi!',
      usage: { inputTokens: 4, outputTokens: 1, totalTokens: 5, costUsd: cost },
      finishReason: 'stop',
      responseModel: 'gpt-4o-mini',
      toolCalls: [],
      costUsd: cost,
    });
    expect(server.calls[0].path).toBe('/v1/chat/completions');
    expect(server.calls[0].body.model).toBe('gpt-4o-mini');
    expect(server.calls[0].headers.authorization).toBe('Bearer sk-test-0123456789');
  });

  it('streams deltas with usage', async () => {
    nextReply = { text: 'streamed from openai', usage: { prompt_tokens: 9, completion_tokens: 3 } };
    const deltas: string[] = [];

    const result = await port().generate(request('openai:gpt-4o-mini', { stream: true, onDelta: (d) => deltas.push(d) }));

    expect(deltas).toEqual(['streamed ', 'from ', 'openai']);
    expect(result.text).toBe('streamed from openai');
    expect(result.usage).toMatchObject({ inputTokens: 9, outputTokens: 3, totalTokens: 12 });
    expect(server.calls[0].body.stream_options).toEqual({ include_usage: true });
  });
});

describe('cost', () => {
  it('prices a call from a configured price, on the result and in usage', async () => {
    nextReply = { text: 'ok', usage: { prompt_tokens: 1500, completion_tokens: 250 } };
    const priced = createModelPort({
      compatible: { baseUrl: server.baseUrl },
      prices: { 'compatible:paid': { inputPerMTok: 0.5, outputPerMTok: 1.5 } },
    });

    const result = await priced.generate(request('compatible:paid', { stream: true }));

    // 1,500 × $0.50/M + 250 × $1.50/M
    expect(result.costUsd).toBe(0.001125);
    expect(result.usage.costUsd).toBe(0.001125);
  });

  it('prices a call from the default table', async () => {
    nextReply = { text: 'ok', usage: { prompt_tokens: 1000, completion_tokens: 1000 } };

    const result = await createModelPort({ openai: { apiKey: 'sk-test-0123456789', baseUrl: server.baseUrl } }).generate(
      request('openai:gpt-4.1'),
    );

    // gpt-4.1: $2/M in + $8/M out
    expect(result.costUsd).toBe(0.01);
    expect(result.usage).toEqual({ inputTokens: 1000, outputTokens: 1000, totalTokens: 2000, costUsd: 0.01 });
  });

  it('leaves the cost out for a model without a price, and says the call is unpriced', async () => {
    nextReply = { text: 'ok' };

    const result = await createModelPort({ openai: { apiKey: 'sk-test-0123456789', baseUrl: server.baseUrl } }).generate(
      request('openai:gpt-unpriced'),
    );

    expect(result).not.toHaveProperty('costUsd');
    expect(result.usage).not.toHaveProperty('costUsd');
    expect(result.usage.unpricedCalls).toBe(1);
  });

  it.each([false, true])(
    'keeps cached and reasoning tokens the provider reports and prices them at their rates (stream: %s)',
    async (stream) => {
      nextReply = {
        text: 'ok',
        usage: {
          prompt_tokens: 1000,
          completion_tokens: 500,
          prompt_tokens_details: { cached_tokens: 800 },
          completion_tokens_details: { reasoning_tokens: 300 },
        },
      };

      const result = await createModelPort({ openai: { apiKey: 'sk-test-0123456789', baseUrl: server.baseUrl } }).generate(
        request('openai:gpt-4o', { stream }),
      );

      // gpt-4o: 200 plain in at $2.50/M + 800 cached at $1.25/M + 500 out at $10/M (reasoning billed as output)
      expect(result.usage).toEqual({
        inputTokens: 1000,
        outputTokens: 500,
        totalTokens: 1500,
        cachedInputTokens: 800,
        reasoningTokens: 300,
        costUsd: 0.0065,
      });
    },
  );

  it('rejects a malformed configured price table when the port is created', () => {
    expect(() => createModelPort({ prices: { 'openai:gpt-4o': { inputPerMTok: -1, outputPerMTok: 0 } } })).toThrow(/LlmConfig.prices/);
  });
});
