import type { FileRef, RunEvent } from '@spindle/contracts';
import { messageHash } from '@spindle/engine/browser';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { attachmentSummary, conversationOf } from './conversation';

let seq = 0;
const ev = (type: string, spanId: string, data: Record<string, unknown>) =>
  ({
    runId: 'r1',
    seq: ++seq,
    at: new Date(seq).toISOString(),
    spanId,
    path: 'root/agent',
    nodeId: 'agent',
    type,
    data,
  }) as unknown as RunEvent;
const usage = { inputTokens: 40, outputTokens: 8, totalTokens: 48, cachedInputTokens: 10, costUsd: 0.0002 };

/** An agent's two calls: the first asks for a tool, the second sees the result and answers. */
function agentRun(): RunEvent[] {
  seq = 0;
  const user = { role: 'user', content: 'Where is order A-1002?', hash: 'h-user' };
  const assistant = {
    role: 'assistant',
    content: '',
    toolCalls: [{ id: 'c1', name: 'lookup_order', arguments: { id: 'A-1002' } }],
    hash: 'h-asst',
  };
  const tool = { role: 'tool', toolCallId: 'c1', toolName: 'lookup_order', content: '{"status":"shipped"}', hash: 'h-tool' };
  return [
    ev('model.started', 'm1', {
      model: 'compatible:m',
      system: 'You answer about orders.',
      messages: [user],
      history: [],
      tools: ['lookup_order'],
      stream: false,
    }),
    ev('model.completed', 'm1', {
      model: 'compatible:m',
      text: '',
      toolCalls: assistant.toolCalls,
      usage,
      finishReason: 'tool-calls',
      durationMs: 30,
    }),
    ev('tool.called', 't1', { name: 'lookup_order', callId: 'c1', arguments: { id: 'A-1002' } }),
    ev('tool.returned', 't1', { name: 'lookup_order', callId: 'c1', result: { status: 'shipped' }, durationMs: 2 }),
    ev('model.started', 'm2', {
      model: 'compatible:m',
      system: 'You answer about orders.',
      messages: [assistant, tool],
      history: ['h-user'],
      tools: ['lookup_order'],
      stream: true,
    }),
    ev('model.completed', 'm2', {
      model: 'compatible:m',
      text: 'It shipped.',
      reasoning: 'The tool says shipped.',
      usage,
      finishReason: 'stop',
      responseModel: 'm-2026',
      durationMs: 40,
    }),
  ];
}

describe('a model call as a conversation', () => {
  it('puts the system prompt, the earlier messages by hash, the new ones and the answer in order, each part its own block', () => {
    const conversation = conversationOf(agentRun(), 'm2');
    expect(conversation?.messages.map((m) => [m.role, m.earlier, m.blocks.map((b) => b.kind)])).toEqual([
      ['system', false, ['text']],
      ['user', true, ['text']],
      ['assistant', false, ['tool-call']],
      ['tool', false, ['tool-result']],
    ]);
    expect(conversation?.messages[3]?.blocks[0]).toEqual({
      kind: 'tool-result',
      callId: 'c1',
      name: 'lookup_order',
      result: { status: 'shipped' },
      isError: false,
    });
    expect(conversation?.response?.blocks).toEqual([
      { kind: 'reasoning', text: 'The tool says shipped.' },
      { kind: 'text', text: 'It shipped.' },
    ]);
    expect(conversation).toMatchObject({ finishReason: 'stop', responseModel: 'm-2026', usage, durationMs: 40, tools: ['lookup_order'] });
  });

  it('shows a tool call the model asked for as a block of the answer', () => {
    expect(conversationOf(agentRun(), 'm1')?.response?.blocks).toEqual([
      { kind: 'tool-call', callId: 'c1', name: 'lookup_order', arguments: { id: 'A-1002' } },
    ]);
  });

  it('says which earlier message the log does not hold, has no answer while the call is in flight, and keeps a failure', () => {
    seq = 0;
    const started = ev('model.started', 'm', {
      model: 'x',
      messages: [{ role: 'user', content: 'hi', hash: 'h2' }],
      history: ['gone'],
      stream: false,
    });
    expect(conversationOf([started], 'm')).toMatchObject({ messages: [{ blocks: [{ kind: 'missing', hash: 'gone' }] }, { role: 'user' }] });
    expect(conversationOf([started], 'm')?.response).toBeUndefined();
    const failed = ev('model.failed', 'm', { model: 'x', error: { code: 'provider_error', message: 'down' }, durationMs: 5 });
    expect(conversationOf([started, failed], 'm')?.error).toEqual({ code: 'provider_error', message: 'down' });
    expect(conversationOf([started], 'other')).toBeUndefined();
  });

  it("finds a single-prompt call's prompt, logged without a hash, when a later call names it by the engine's hash", () => {
    seq = 0;
    // The engine's messageHash of { role: 'user', content: 'Where is order A-1002?' } (node:crypto, SHA-256, 16 hex digits).
    const hash = createHash('sha256')
      .update(JSON.stringify({ role: 'user', content: 'Where is order A-1002?' }))
      .digest('hex')
      .slice(0, 16);
    const first = ev('model.started', 'm1', { model: 'x', prompt: 'Where is order A-1002?', stream: false });
    const second = ev('model.started', 'm2', { model: 'x', messages: [], history: [hash], stream: false });
    expect(conversationOf([first, second], 'm2')?.messages).toEqual([
      { role: 'user', blocks: [{ kind: 'text', text: 'Where is order A-1002?' }], earlier: true },
    ]);
  });

  it('reads a single-prompt call as one user message, and a tool result that is not JSON as text', () => {
    seq = 0;
    const prompt = ev('model.started', 'p', { model: 'x', prompt: 'Say hi', stream: false });
    expect(conversationOf([prompt], 'p')?.messages).toEqual([{ role: 'user', blocks: [{ kind: 'text', text: 'Say hi' }], earlier: false }]);
    const tool = { role: 'tool', toolCallId: 'c', toolName: 'echo', content: 'plain words', isError: true, hash: 'h' };
    const call = ev('model.started', 'q', { model: 'x', messages: [tool], stream: false });
    expect(conversationOf([call], 'q')?.messages[0]?.blocks[0]).toMatchObject({ result: 'plain words', isError: true });
  });

  it("shows the files a call sent as file blocks, and finds a prompt with files by the engine's hash", () => {
    seq = 0;
    const png = { type: 'file', fileId: `file_${'a'.repeat(26)}`, mediaType: 'image/png', bytes: 68, sha256: 'a'.repeat(64) };
    const pdf = { ...png, fileId: `file_${'b'.repeat(26)}`, mediaType: 'application/pdf', name: 'r.pdf' };
    const first = ev('model.started', 'm1', { model: 'x', prompt: 'What is this?', attachments: [png], stream: false });
    expect(conversationOf([first], 'm1')?.messages).toEqual([
      {
        role: 'user',
        blocks: [
          { kind: 'text', text: 'What is this?' },
          { kind: 'file', file: png },
        ],
        earlier: false,
      },
    ]);
    const hash = messageHash({ role: 'user', content: 'What is this?', attachments: [png as FileRef] });
    const tool = { role: 'tool', toolCallId: 'c', toolName: 'render', content: '{}', attachments: [pdf], hash: 'h-tool' };
    const second = ev('model.started', 'm2', { model: 'x', messages: [tool], history: [hash], attachments: [png, pdf], stream: false });
    expect(conversationOf([first, second], 'm2')?.messages.map((m) => [m.role, m.earlier, m.blocks.map((b) => b.kind)])).toEqual([
      ['user', true, ['text', 'file']],
      ['tool', false, ['tool-result', 'file']],
    ]);
    expect(attachmentSummary(conversationOf([first, second], 'm2')?.attachments ?? [])).toBe('2 · image/png, application/pdf');
    expect(conversationOf([first, second], 'm1')?.attachments).toEqual([png]);
  });
});
