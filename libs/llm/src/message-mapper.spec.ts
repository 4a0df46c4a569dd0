import { toModelMessages, toToolCall, toToolSet } from './message-mapper';

// The OpenAI wire format drops the error flag and the json/text distinction (see
// model-router-tools.spec.ts), so the mapping itself is pinned here; Anthropic relies on it.
describe('toModelMessages', () => {
  it('maps tool results to json / text outputs, and to error-json / error-text when isError', () => {
    const messages = toModelMessages([
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

  it('gives an assistant message with calls tool-call parts, keeping non-empty text first', () => {
    const call = { id: 'c1', name: 'lookup', arguments: { q: 'x' } };

    expect(
      toModelMessages([
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
      toModelMessages([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello', toolCalls: [] },
      ]),
    ).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ]);
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
