import type { FileRef } from '@spindle/contracts';
import { toModelMessages, toToolCall, toToolSet } from './message-mapper';

// The OpenAI wire format drops the error flag and the json/text distinction (see
// model-router-tools.spec.ts), so the mapping itself is pinned here; Anthropic relies on it.
describe('toModelMessages', () => {
  it('maps tool results to json / text outputs, and to error-json / error-text when isError', async () => {
    const messages = await toModelMessages([
      { role: 'tool', toolCallId: 'a', toolName: 't', content: '{"ok":true}' },
      { role: 'tool', toolCallId: 'b', toolName: 't', content: 'plain words' },
      { role: 'tool', toolCallId: 'c', toolName: 't', content: '{"error":"boom"}', isError: true },
      { role: 'tool', toolCallId: 'd', toolName: 't', content: 'stack trace here', isError: true },
    ]);

    expect(messages.map((m) => (m.role === 'tool' ? m.content[0] : undefined))).toEqual([
      { type: 'tool-result', toolCallId: 'a', toolName: 't', output: { type: 'json', value: { ok: true } } },
      { type: 'tool-result', toolCallId: 'b', toolName: 't', output: { type: 'text', value: 'plain words' } },
      { type: 'tool-result', toolCallId: 'c', toolName: 't', output: { type: 'error-json', value: { error: 'boom' } } },
      { type: 'tool-result', toolCallId: 'd', toolName: 't', output: { type: 'error-text', value: 'stack trace here' } },
    ]);
  });

  it('gives an assistant message with calls tool-call parts, keeping non-empty text first', async () => {
    const call = { id: 'c1', name: 'lookup', arguments: { q: 'x' } };

    expect(
      await toModelMessages([
        { role: 'assistant', content: 'Checking.', toolCalls: [call] },
        { role: 'assistant', content: '', toolCalls: [call] },
      ]),
    ).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { q: 'x' } },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { q: 'x' } }] },
    ]);
    expect(
      await toModelMessages([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello', toolCalls: [] },
      ]),
    ).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ]);
  });
});

describe('toModelMessages with files', () => {
  const png: FileRef = { type: 'file', fileId: `file_${'a'.repeat(26)}`, mediaType: 'image/png', bytes: 3, sha256: 'a'.repeat(64) };
  const pdf: FileRef = {
    type: 'file',
    fileId: `file_${'b'.repeat(26)}`,
    mediaType: 'application/pdf',
    bytes: 2,
    sha256: 'b'.repeat(64),
    name: 'r.pdf',
  };
  const contents: Record<string, Uint8Array> = { [png.sha256]: Uint8Array.of(1, 2, 3), [pdf.sha256]: Uint8Array.of(9, 9) };
  const reads: string[] = [];
  const readFile = async (ref: FileRef) => {
    reads.push(ref.fileId);
    return contents[ref.sha256];
  };

  it('puts images as image parts and other files as file parts after the text, reading each file once', async () => {
    reads.length = 0;
    const messages = await toModelMessages(
      [
        { role: 'user', content: 'Look', attachments: [png, pdf] },
        { role: 'user', content: '', attachments: [png] },
      ],
      readFile,
    );
    expect(messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look' },
          { type: 'image', image: contents[png.sha256], mediaType: 'image/png' },
          { type: 'file', data: contents[pdf.sha256], mediaType: 'application/pdf', filename: 'r.pdf' },
        ],
      },
      { role: 'user', content: [{ type: 'image', image: contents[png.sha256], mediaType: 'image/png' }] },
    ]);
    expect(reads).toEqual([png.fileId, pdf.fileId]);
  });

  it('sends the files of a run of tool results as one user message after the last of them', async () => {
    const messages = await toModelMessages(
      [
        { role: 'tool', toolCallId: 'a', toolName: 't', content: '{}', attachments: [png] },
        { role: 'tool', toolCallId: 'b', toolName: 't', content: '{}', attachments: [pdf, png] },
      ],
      readFile,
    );
    expect(messages.map((m) => m.role)).toEqual(['tool', 'tool', 'user']);
    expect(messages[2].content).toEqual([
      { type: 'text', text: 'The files the tool results above returned:' },
      { type: 'image', image: contents[png.sha256], mediaType: 'image/png' },
      { type: 'file', data: contents[pdf.sha256], mediaType: 'application/pdf', filename: 'r.pdf' },
    ]);
  });

  it('refuses files without a reader as file_not_found', async () => {
    await expect(toModelMessages([{ role: 'user', content: 'x', attachments: [png] }])).rejects.toMatchObject({ code: 'file_not_found' });
  });
});

describe('toToolSet and toToolCall', () => {
  it('builds tools without execute, so the SDK can never run one', () => {
    const tools = toToolSet([{ name: 'lookup', description: 'Find things', inputSchema: { type: 'object' } }]);

    expect(Object.keys(tools ?? {})).toEqual(['lookup']);
    expect(tools?.['lookup'].execute).toBeUndefined();
    expect(tools?.['lookup'].description).toBe('Find things');
    expect(toToolSet([])).toBeUndefined();
  });

  it('rejects arguments that are not an object, quoting what the model sent', () => {
    expect(toToolCall({ toolCallId: 'c', toolName: 't', input: { a: 1 } })).toEqual({ id: 'c', name: 't', arguments: { a: 1 } });
    expect(() => toToolCall({ toolCallId: 'c', toolName: 't', input: '{"a": 1' })).toThrow(/not a JSON object: \{"a": 1/);
    expect(() => toToolCall({ toolCallId: 'c', toolName: 't', input: null })).toThrow(/not a JSON object: null/);
  });
});
