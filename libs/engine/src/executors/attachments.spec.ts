import type { FileRef } from '@spindle/contracts';
import { validateDefinition } from '../definition/validate-definition';
import { messageHash } from '../hashing/message-hash';
import { sha256Hex } from '../hashing/sha256';
import { executeRun } from '../interpreter/execute-run';
import { recordingEnvironment, scriptedModel, toolCalls } from '../testing/in-process-ports';
import { toGraph } from '../patterns/compile-pattern';
import { fileRefsIn } from './attachments';

const png: FileRef = { type: 'file', fileId: `file_${'a'.repeat(26)}`, mediaType: 'image/png', bytes: 68, sha256: 'a'.repeat(64) };
const pdf: FileRef = { type: 'file', fileId: `file_${'b'.repeat(26)}`, mediaType: 'application/pdf', bytes: 900, sha256: 'b'.repeat(64) };

const run = (definition: unknown, env: ReturnType<typeof recordingEnvironment>['env'], state: Record<string, unknown>) =>
  executeRun({ definition: validateDefinition(definition), state, attempt: 1, worker: 'w' }, env);
const graph = (node: Record<string, unknown>) => ({ kind: 'graph', nodes: [{ id: 'look', ...node }] });
const startedData = (events: Array<{ type: string; data: unknown }>) =>
  events.filter((e) => e.type === 'model.started').map((e) => e.data as { attachments?: FileRef[]; messages?: unknown[] });

describe('attachments: the files an llm or agent node sends its model', () => {
  it('puts the files of `attachments` on the llm node user message and logs them on model.started', async () => {
    const model = scriptedModel(['a cat']);
    const { env, events } = recordingEnvironment({ model });
    const outcome = await run(graph({ type: 'llm', model: 'compatible:m', prompt: 'What is this?', attachments: 'input.files' }), env, {
      input: { files: [png, pdf] },
    });
    expect(outcome).toMatchObject({ status: 'completed', output: { output: 'a cat' } });
    expect(model.requests[0].messages).toEqual([{ role: 'user', content: 'What is this?', attachments: [png, pdf] }]);
    expect(startedData(events)[0].attachments).toEqual([png, pdf]);
    // Integers survive the trip through CEL as numbers, not BigInts.
    expect(typeof (model.requests[0].messages[0] as { attachments: FileRef[] }).attachments[1].bytes).toBe('number');
  });

  it('takes one reference, or finds the references inside a value; none leaves the message as it was', async () => {
    for (const [expression, expected] of [
      ['input.shot', [png]],
      ['input', [png, pdf]],
      ['input.none', undefined],
    ] as const) {
      const model = scriptedModel(['ok']);
      const { env, events } = recordingEnvironment({ model });
      await run(graph({ type: 'llm', model: 'offline:echo', prompt: 'p', attachments: expression }), env, {
        input: { shot: png, nested: { list: [pdf, png] }, none: [] },
      });
      expect((model.requests[0].messages[0] as { attachments?: FileRef[] }).attachments).toEqual(expected);
      expect(startedData(events)[0].attachments).toEqual(expected);
    }
  });

  it('fails the node with validation_failed, naming the field, when the value holds no file reference', async () => {
    for (const value of ['a string', { type: 'file', fileId: png.fileId }, [1, 2]]) {
      const { env } = recordingEnvironment({ model: scriptedModel(['never']) });
      expect(
        await run(graph({ type: 'llm', model: 'offline:echo', prompt: 'p', attachments: 'input.files' }), env, { input: { files: value } }),
      ).toMatchObject({
        status: 'failed',
        error: { code: 'validation_failed', nodeId: 'look', message: expect.stringContaining('attachments ("input.files")') },
      });
    }
  });

  it('keeps an agent conversation files in its memory, so the next run of the thread sends them again', async () => {
    const model = scriptedModel(['A cat.', 'Still a cat.']);
    const agent = graph({
      type: 'agent',
      model: 'compatible:m',
      prompt: '{{input.text}}',
      attachments: 'input.files',
      memory_key: 'messages',
    });
    const first = await run(agent, recordingEnvironment({ model }).env, { input: { text: 'What is this?', files: [png] } });
    const memory = (first as unknown as { output: { messages: unknown[] } }).output.messages;
    // Through JSON, as a thread's next run reads it from the log.
    const second = recordingEnvironment({ model });
    await run(agent, second.env, { messages: JSON.parse(JSON.stringify(memory)), input: { text: 'And now?', files: [] } });
    expect(model.requests[1].messages).toEqual([
      { role: 'user', content: 'What is this?', attachments: [png] },
      { role: 'assistant', content: 'A cat.' },
      { role: 'user', content: 'And now?' },
    ]);
    expect(startedData(second.events)[0].attachments).toEqual([png]);
  });

  it('sends files a tool returns on its tool message, and each file once per call', async () => {
    const model = scriptedModel([toolCalls({ name: 'render', arguments: {} }), 'Rendered.']);
    const { env, events } = recordingEnvironment({ model, tools: { render: () => ({ chart: pdf, again: png }) } });
    await run(graph({ type: 'agent', model: 'compatible:m', prompt: 'Chart it', attachments: 'input.files', tools: ['render'] }), env, {
      input: { files: [png] },
    });
    const tool = model.requests[1].messages[2];
    expect(tool).toMatchObject({ role: 'tool', toolName: 'render', attachments: [pdf, png] });
    expect(startedData(events)[1].attachments).toEqual([png, pdf]);
  });

  it('finds references at most a few levels deep, never a caller-written part', () => {
    let deep: unknown = png;
    for (let i = 0; i < 20; i++) deep = { down: deep };
    expect(fileRefsIn(deep)).toEqual([]);
    expect(fileRefsIn({ a: { type: 'file', fileId: png.fileId } })).toEqual([]);
    expect(fileRefsIn([png, { again: png }])).toEqual([png]);
  });
});

describe('message hashes and files', () => {
  it('hashes a message without files exactly as before, and a different file as a different message', () => {
    const plain = { role: 'user' as const, content: 'What is this?' };
    expect(messageHash(plain)).toBe(sha256Hex(JSON.stringify(plain)).slice(0, 16));
    const withPng = messageHash({ ...plain, attachments: [png] });
    expect(withPng).not.toBe(messageHash(plain));
    expect(messageHash({ ...plain, attachments: [{ ...png, sha256: 'c'.repeat(64) }] })).not.toBe(withPng);
    // Key order of a reference read back from state does not matter.
    const reordered = { sha256: png.sha256, bytes: png.bytes, mediaType: png.mediaType, fileId: png.fileId, type: 'file' as const };
    expect(messageHash({ ...plain, attachments: [reordered] })).toBe(withPng);
  });
});

describe('attachments at save', () => {
  it('refuses a static model that takes no files with attachment_not_supported, naming the model', () => {
    expect(() =>
      validateDefinition(graph({ type: 'llm', model: 'openai:gpt-3.5-turbo', prompt: 'p', attachments: 'input.files' })),
    ).toThrow(
      expect.objectContaining({
        code: 'attachment_not_supported',
        issues: [expect.objectContaining({ field: 'nodes[0].attachments', message: expect.stringContaining('openai:gpt-3.5-turbo') })],
      }),
    );
    // A model that takes some files is checked at the call, when the media types are known.
    expect(() => validateDefinition(graph({ type: 'llm', model: 'compatible:m', prompt: 'p', attachments: 'input.files' }))).not.toThrow();
  });

  it('refuses an attachments expression that does not parse', () => {
    expect(() => validateDefinition(graph({ type: 'agent', model: 'offline:echo', attachments: 'input.files[' }))).toThrow(
      expect.objectContaining({ code: 'invalid_definition', issues: [expect.objectContaining({ field: 'nodes[0].attachments' })] }),
    );
  });

  it('passes a pattern agent attachments to its node', () => {
    const def = validateDefinition({
      kind: 'sequential',
      agents: [{ name: 'looker', model: 'offline:echo', attachments: 'input.files' }],
    });
    expect(toGraph(def).nodes[0]).toMatchObject({ id: 'looker', type: 'agent', attachments: 'input.files' });
  });
});
