import { createHash } from 'node:crypto';
import { isSpindleError, SpindleError, type FileRef } from '@spindle/contracts';
import type { ChatMessage, ModelRequest } from '@spindle/engine';
import { streamText } from 'ai';
import { createModelPort } from './model-router';
import { OfflineEchoModel, countWords, splitWords } from './offline-echo.model';

const messages: ChatMessage[] = [
  { role: 'user', content: 'hi' },
  { role: 'assistant', content: 'hello' },
  { role: 'user', content: 'hello there  world' },
];

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { model: 'offline:echo', system: 'be brief', messages, stream: true, signal: new AbortController().signal, ...overrides };
}

describe('offline:echo', () => {
  const port = createModelPort({});

  it('streams the last user message word by word, deltas joining to the text', async () => {
    const deltas: string[] = [];
    const result = await port.generate(request({ onDelta: (d) => deltas.push(d) }));

    expect(deltas).toEqual(['hello ', 'there  ', 'world']);
    expect(deltas.join('')).toBe(result.text);
    expect(result.text).toBe('hello there  world');
    expect(result.finishReason).toBe('stop');
    // input: 'be brief' (2) + 'hi' (1) + 'hello' (1) + 'hello there  world' (3); output: 3 words
    // offline:* is priced 0, so the cost is there and zero
    expect(result.usage).toEqual({ inputTokens: 7, outputTokens: 3, totalTokens: 10, costUsd: 0 });
  });

  it('answers the same without streaming, and never calls onDelta', async () => {
    const onDelta = jest.fn();
    const result = await port.generate(request({ stream: false, onDelta }));

    expect(result).toEqual({
      text: 'hello there  world',
      usage: { inputTokens: 7, outputTokens: 3, totalTokens: 10, costUsd: 0 },
      finishReason: 'stop',
      responseModel: 'echo',
      toolCalls: [],
      costUsd: 0,
    });
    expect(onDelta).not.toHaveBeenCalled();
  });

  it('streams with a configured per-chunk delay', async () => {
    const slow = createModelPort({ offline: { chunkDelayMs: 5 } });
    const deltas: string[] = [];
    const result = await slow.generate(request({ onDelta: (d) => deltas.push(d) }));

    expect(deltas).toHaveLength(3);
    expect(deltas.join('')).toBe(result.text);
  });

  it('stops streaming and rejects with the abort reason when aborted mid-stream', async () => {
    const ac = new AbortController();
    const reason = new Error('cancelled by test');
    const deltas: string[] = [];
    const slow = createModelPort({ offline: { chunkDelayMs: 5 } });

    const run = slow.generate(
      request({
        signal: ac.signal,
        onDelta: (d) => {
          deltas.push(d);
          ac.abort(reason);
        },
      }),
    );

    await expect(run).rejects.toBe(reason);
    expect(deltas).toEqual(['hello ']);
  });

  it('rejects with the reason, without calling the model, when the signal is already aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    const onDelta = jest.fn();

    await expect(port.generate(request({ signal: ac.signal, onDelta }))).rejects.toMatchObject({ name: 'AbortError' });
    expect(onDelta).not.toHaveBeenCalled();
  });

  it('rejects other offline models as unknown_model', async () => {
    const error = await port.generate(request({ model: 'offline:parrot' })).catch((e: unknown) => e);

    expect(isSpindleError(error) && error.code).toBe('unknown_model');
    expect((error as Error).message).toContain('offline:echo');
  });

  it('is a plain LanguageModelV3 usable with streamText directly', async () => {
    const result = streamText({ model: new OfflineEchoModel(), prompt: 'one two' });
    const parts: string[] = [];
    for await (const delta of result.textStream) parts.push(delta);

    expect(parts).toEqual(['one ', 'two']);
    expect((await result.usage).outputTokens).toBe(2);
  });
});

describe('splitWords / countWords', () => {
  it('keeps every character, whitespace included', () => {
    expect(splitWords('  lead and trail  ')).toEqual(['  lead ', 'and ', 'trail  ']);
    expect(splitWords('')).toEqual([]);
    expect(splitWords('   ')).toEqual(['   ']);
    expect(splitWords('a\nb')).toEqual(['a\n', 'b']);
  });

  it('counts whitespace-separated words', () => {
    expect(countWords('  one two\tthree\n')).toBe(3);
    expect(countWords('')).toBe(0);
  });
});

describe('offline:echo with files', () => {
  const bytes = new TextEncoder().encode('%PDF-1.4 tiny');
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const pdf: FileRef = { type: 'file', fileId: `file_${'p'.repeat(26)}`, mediaType: 'application/pdf', bytes: bytes.byteLength, sha256 };
  const png: FileRef = { ...pdf, fileId: `file_${'q'.repeat(26)}`, mediaType: 'image/png' };

  it('reports each file it was sent: media type, size and sha256 of the bytes the port read', async () => {
    const port = createModelPort({}, { readFile: async (ref) => (ref.sha256 === sha256 ? bytes : new Uint8Array()) });
    for (const stream of [false, true]) {
      const result = await port.generate(
        request({ stream, messages: [{ role: 'user', content: 'What are these?', attachments: [pdf, png] }] }),
      );
      expect(result.text).toBe(
        `What are these?\n[file application/pdf, ${bytes.byteLength} bytes, sha256 ${sha256}]\n` +
          `[file image/png, ${bytes.byteLength} bytes, sha256 ${sha256}]`,
      );
    }
  });

  it('says file_not_found, not provider_error, when the bytes are gone', async () => {
    const port = createModelPort(
      {},
      {
        readFile: async () => {
          throw new SpindleError('file_not_found', 'gone');
        },
      },
    );
    await expect(port.generate(request({ messages: [{ role: 'user', content: 'x', attachments: [pdf] }] }))).rejects.toMatchObject({
      code: 'file_not_found',
    });
  });
});
