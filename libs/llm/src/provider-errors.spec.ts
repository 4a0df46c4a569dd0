import { isSpindleError, type SpindleError } from '@spindle/contracts';
import type { ModelRequest } from '@spindle/engine';
// Test-only use of libs/testing; the workspace tag rules do not yet exempt spec files.
import { FakeOpenAIServer, type FakeOpenAIReply } from '@spindle/testing';
import type { LlmConfig } from './llm-config';
import { createModelPort } from './model-router';

const API_KEY = 'sk-secret-abcdef123456';
let nextReply: FakeOpenAIReply = { text: '' };
const server = new FakeOpenAIServer(() => nextReply);

beforeAll(() => server.start());
afterAll(() => server.stop());

function request(model: string, overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { model, messages: [{ role: 'user', content: 'hi' }], stream: false, signal: new AbortController().signal, ...overrides };
}

/** The SpindleError a call rejects with; fails the test if it resolves or throws anything else. */
async function failure(config: LlmConfig, req: ModelRequest): Promise<SpindleError> {
  const error = await createModelPort(config)
    .generate(req)
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  if (!isSpindleError(error)) throw new Error(`expected a SpindleError, got ${String(error)}`);
  return error;
}

describe('provider_error', () => {
  const config = (): LlmConfig => ({
    openai: { apiKey: API_KEY, baseUrl: server.baseUrl },
    compatible: { baseUrl: server.baseUrl, apiKey: API_KEY },
  });

  it.each([
    ['compatible:m', false],
    ['compatible:m', true],
    ['openai:gpt-4o-mini', false],
    ['openai:gpt-4o-mini', true],
  ])('maps HTTP 500 from %s (stream: %s) with the status and reason, never the key', async (model, stream) => {
    // a server that echoes the key back must not leak it into our message
    nextReply = { text: '', status: 500, error: `upstream exploded (key ${API_KEY})` };

    const error = await failure(config(), request(model, { stream }));

    expect(error.code).toBe('provider_error');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('HTTP 500');
    expect(error.message).toContain('upstream exploded');
    expect(error.message).not.toContain(API_KEY);
  });

  it('maps HTTP 401 the same way, status included', async () => {
    nextReply = { text: '', status: 401, error: 'invalid api key' };

    const error = await failure(config(), request('compatible:m', { stream: true }));

    expect(error.code).toBe('provider_error');
    expect(error.message).toMatch(/HTTP 401: invalid api key/);
  });

  it('surfaces an error event in the middle of a stream (streamText only puts it in the stream)', async () => {
    nextReply = { text: 'partial answer', error: 'model overloaded' };
    const deltas: string[] = [];

    const error = await failure(config(), request('compatible:m', { stream: true, onDelta: (d) => deltas.push(d) }));

    expect(error.code).toBe('provider_error');
    expect(error.message).toContain('model overloaded');
    expect(deltas.join('')).toBe('partial answer');
  });

  it('maps an unreachable server to provider_error', async () => {
    const gone = new FakeOpenAIServer();
    await gone.start();
    const baseUrl = gone.baseUrl;
    await gone.stop();

    const error = await failure({ compatible: { baseUrl } }, request('compatible:m'));

    expect(error.code).toBe('provider_error');
    expect(error.message).toContain('compatible:m failed');
  });

  it('reaches anthropic over HTTP at its base URL (the fake has no Messages API: 404)', async () => {
    const error = await failure({ anthropic: { apiKey: API_KEY, baseUrl: server.baseUrl } }, request('anthropic:claude-x'));

    expect(error.code).toBe('provider_error');
    expect(error.message).toContain('HTTP 404');
  });

  it('lets an exception from onDelta through unchanged (a caller bug, not a provider failure)', async () => {
    nextReply = { text: 'a b c' };
    const bug = new Error('sink is broken');

    const run = createModelPort(config()).generate(
      request('compatible:m', {
        stream: true,
        onDelta: () => {
          throw bug;
        },
      }),
    );

    await expect(run).rejects.toBe(bug);
  });
});

describe('unknown_model', () => {
  it.each(['gpt-4o', ':gpt-4o', 'openai:', 'openai: ', ''])('rejects the malformed model string %p', async (model) => {
    const error = await failure({}, request(model));

    expect(error.code).toBe('unknown_model');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('provider:model');
  });

  it('rejects an unknown provider, listing the known ones', async () => {
    const error = await failure({}, request('mistral:large'));

    expect(error.code).toBe('unknown_model');
    expect(error.message).toContain("'mistral'");
    expect(error.message).toContain('openai, anthropic, compatible, offline');
  });

  it.each([
    ['openai:gpt-4o-mini', 'OPENAI_API_KEY'],
    ['anthropic:claude-sonnet-4-5', 'ANTHROPIC_API_KEY'],
    ['compatible:llama3', 'OPENAI_COMPATIBLE_BASE_URL'],
  ])('rejects %s when its provider is not configured, naming %s', async (model, envVar) => {
    const error = await failure({ openai: { baseUrl: server.baseUrl }, compatible: { apiKey: 'k' } }, request(model));

    expect(error.code).toBe('unknown_model');
    expect(error.message).toContain(envVar);
  });

  it('makes no HTTP call when the model cannot be resolved', async () => {
    const before = server.callCount;

    await failure({ openai: { baseUrl: server.baseUrl } }, request('openai:gpt-4o-mini'));

    expect(server.callCount).toBe(before);
  });
});
