import { createHash } from 'node:crypto';
import type { FileRef } from '@spindle/contracts';
import type { ChatMessage, ModelRequest } from '@spindle/engine';
// Test-only use of libs/testing; the workspace tag rules do not yet exempt spec files.
import { FakeAnthropicServer, FakeOpenAIServer } from '@spindle/testing';
import { createModelPort } from './model-router';

/**
 * Files reach each provider in its own wire shape, through the real AI SDK clients over HTTP to
 * local fake servers: the base64 in the recorded request bodies decodes to exactly the bytes.
 */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n', 'latin1');

const ref = (bytes: Buffer, mediaType: string, id: string, name?: string): FileRef => ({
  type: 'file',
  fileId: `file_${id.repeat(26)}`,
  mediaType,
  bytes: bytes.byteLength,
  sha256: createHash('sha256').update(bytes).digest('hex'),
  ...(name ? { name } : {}),
});
const png = ref(PNG, 'image/png', 'i');
const pdf = ref(PDF, 'application/pdf', 'd', 'report.pdf');
const store = new Map([
  [png.sha256, PNG],
  [pdf.sha256, PDF],
]);
const readFile = async (file: FileRef) => new Uint8Array(store.get(file.sha256) ?? []);

function request(model: string, messages: ChatMessage[], stream = false): ModelRequest {
  return { model, messages, stream, signal: new AbortController().signal };
}
const look = (attachments: FileRef[]): ChatMessage[] => [{ role: 'user', content: 'What is in these?', attachments }];

/** The bytes behind a `data:<type>;base64,` URL, checking its media type. */
function dataUrlBytes(url: unknown, mediaType: string): Buffer {
  const prefix = `data:${mediaType};base64,`;
  expect(typeof url === 'string' && url.startsWith(prefix)).toBe(true);
  return Buffer.from((url as string).slice(prefix.length), 'base64');
}

describe('files over the OpenAI chat-completions wire', () => {
  const server = new FakeOpenAIServer(() => ({ text: 'A pixel and a report.' }));
  beforeAll(() => server.start());
  afterAll(() => server.stop());
  beforeEach(() => void (server.calls.length = 0));

  it('sends an image as an image_url data URL and a PDF as a file part, byte for byte (openai:gpt-4o)', async () => {
    const port = createModelPort({ openai: { apiKey: 'sk-test', baseUrl: server.baseUrl } }, { readFile });
    const result = await port.generate(request('openai:gpt-4o', look([png, pdf])));
    expect(result.text).toBe('A pixel and a report.');
    const [user] = server.calls[0].body.messages ?? [];
    const [text, image, file] = user.content as Array<Record<string, Record<string, unknown>>>;
    expect(text).toEqual({ type: 'text', text: 'What is in these?' });
    expect(image.type).toBe('image_url');
    expect(dataUrlBytes(image.image_url.url, 'image/png').equals(PNG)).toBe(true);
    expect(file.type).toBe('file');
    expect(file.file.filename).toBe('report.pdf');
    expect(dataUrlBytes(file.file.file_data, 'application/pdf').equals(PDF)).toBe(true);
  });

  it('sends an image to an OpenAI-compatible server as an image_url data URL, streaming too', async () => {
    const port = createModelPort({ compatible: { baseUrl: server.baseUrl } }, { readFile });
    await port.generate(request('compatible:llava', look([png]), true));
    const [user] = server.calls[0].body.messages ?? [];
    const [, image] = user.content as Array<Record<string, Record<string, unknown>>>;
    expect(image.type).toBe('image_url');
    expect(dataUrlBytes(image.image_url.url, 'image/png').equals(PNG)).toBe(true);
  });

  it('sends files a tool returned on a user message right after the tool results', async () => {
    const port = createModelPort({ openai: { apiKey: 'sk-test', baseUrl: server.baseUrl } }, { readFile });
    await port.generate(
      request('openai:gpt-4.1', [
        { role: 'user', content: 'Draw it' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'draw', arguments: {} }] },
        { role: 'tool', toolCallId: 'call_1', toolName: 'draw', content: '{"ok":true}', attachments: [png] },
      ]),
    );
    const messages = server.calls[0].body.messages ?? [];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(messages[2]).toMatchObject({ tool_call_id: 'call_1', content: '{"ok":true}' });
    const [, image] = messages[3].content as Array<Record<string, Record<string, unknown>>>;
    expect(dataUrlBytes(image.image_url.url, 'image/png').equals(PNG)).toBe(true);
  });

  it('refuses a file the model cannot take with attachment_not_supported, and calls no provider', async () => {
    const port = createModelPort({ compatible: { baseUrl: server.baseUrl } }, { readFile });
    await expect(port.generate(request('compatible:llava', look([png, pdf])))).rejects.toMatchObject({
      code: 'attachment_not_supported',
      message: expect.stringMatching(/compatible:llava.*application\/pdf/),
    });
    const openai = createModelPort({ openai: { apiKey: 'sk-test', baseUrl: server.baseUrl } }, { readFile });
    await expect(openai.generate(request('openai:gpt-3.5-turbo', look([png])))).rejects.toMatchObject({ code: 'attachment_not_supported' });
    expect(server.calls).toHaveLength(0);
  });
});

describe('files over the Anthropic Messages wire', () => {
  const server = new FakeAnthropicServer(() => ({ text: 'A pixel and a report.' }));
  beforeAll(() => server.start());
  afterAll(() => server.stop());
  beforeEach(() => void (server.calls.length = 0));

  it.each([false, true])(
    'sends an image block and a document block with base64 sources equal to the bytes (streaming: %s)',
    async (stream) => {
      const port = createModelPort({ anthropic: { apiKey: 'sk-ant-test', baseUrl: server.baseUrl } }, { readFile });
      const result = await port.generate(request('anthropic:claude-sonnet-4-5', look([png, pdf]), stream));
      expect(result.text).toBe('A pixel and a report.');
      expect(server.calls).toHaveLength(1);
      expect(server.calls[0].body.stream === true).toBe(stream);
      const [user] = server.calls[0].body.messages ?? [];
      const [text, image, document] = user.content as Array<{ type: string; text?: string; source?: Record<string, string> }>;
      expect(text).toMatchObject({ type: 'text', text: 'What is in these?' });
      expect(image).toMatchObject({ type: 'image', source: { type: 'base64', media_type: 'image/png' } });
      expect(Buffer.from(image.source?.data ?? '', 'base64').equals(PNG)).toBe(true);
      expect(document).toMatchObject({ type: 'document', source: { type: 'base64', media_type: 'application/pdf' } });
      expect(Buffer.from(document.source?.data ?? '', 'base64').equals(PDF)).toBe(true);
    },
  );

  it('refuses a file a text-only Claude cannot take before any request', async () => {
    const port = createModelPort({ anthropic: { apiKey: 'sk-ant-test', baseUrl: server.baseUrl } }, { readFile });
    await expect(port.generate(request('anthropic:claude-2.1', look([pdf])))).rejects.toMatchObject({ code: 'attachment_not_supported' });
    expect(server.calls).toHaveLength(0);
  });
});
