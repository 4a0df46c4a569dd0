import { context } from '@opentelemetry/api';
import {
  connectBus,
  deleteStreams,
  EMPTY_LOG,
  fileBucketOf,
  provisionStreams,
  putFileBytes,
  readRunLog,
  RunLogWriter,
  type Bus,
} from '@spindle/bus';
import type { FileRef, RunEventOf } from '@spindle/contracts';
import { testEnv, testNamespace } from '@spindle/testing';
import { executeRunCommand, type RunExecutorDeps } from './run-executor';
import { testExecutorDeps } from './runner-test.fixture';

/** A run whose input holds a file reference: its bytes reach the model through the runner's file reader. */
describe('attachments through the runner on JetStream', () => {
  let bus: Bus;
  let deps: RunExecutorDeps;
  const parent = { attempt: 1, parent: context.active() };
  const bytes = new TextEncoder().encode('\x89PNG\r\n\x1a\n not really an image, but bytes all the same');

  beforeAll(async () => {
    bus = await connectBus({ url: testEnv().natsUrl, namespace: testNamespace(), name: 'runner-attachments-test' });
    await provisionStreams(bus);
    deps = testExecutorDeps(bus);
  });
  afterAll(async () => {
    await deleteStreams(bus);
    // The file bucket this spec created (deleteStreams does not know it yet).
    await bus.jsm.streams.delete(`OBJ_${fileBucketOf(bus.names)}`).catch(() => undefined);
    await bus.close();
  });

  const queue = async (runId: string, files: FileRef[], model = 'offline:echo') => {
    const definition = {
      kind: 'graph',
      nodes: [{ id: 'look', type: 'llm', model, prompt: 'What is this?', attachments: 'input.files' }],
    };
    const input = { files };
    await new RunLogWriter(bus, runId, EMPTY_LOG).write({
      type: 'run.queued',
      spanId: 'root',
      path: 'root',
      data: { workflow: { name: 'w', version: 1 }, input, state: { input }, definition },
    });
  };

  it('answers with the file the model saw (media type, size, hash), and model.started carries the reference', async () => {
    const stored = await putFileBytes(bus, bytes);
    const ref: FileRef = {
      type: 'file',
      fileId: `file_${'s'.repeat(26)}`,
      mediaType: 'image/png',
      bytes: stored.bytes,
      sha256: stored.sha256,
    };
    await queue('run-file', [ref]);
    expect(await executeRunCommand(deps, 'run-file', parent, new AbortController().signal)).toBe('done');
    const { events } = await readRunLog(bus, 'run-file');
    const started = events.find((e): e is RunEventOf<'model.started'> => e.type === 'model.started');
    expect(started?.data.attachments).toEqual([ref]);
    const completed = events.find((e): e is RunEventOf<'model.completed'> => e.type === 'model.completed');
    expect(completed?.data.text).toBe(`What is this?\n[file image/png, ${bytes.byteLength} bytes, sha256 ${stored.sha256}]`);
    expect(events.at(-1)).toMatchObject({ type: 'run.completed', data: { output: { output: completed?.data.text } } });
  });

  it('fails the run with file_not_found when the bytes are not in the file store, and calls no model', async () => {
    const ref: FileRef = { type: 'file', fileId: `file_${'m'.repeat(26)}`, mediaType: 'image/png', bytes: 3, sha256: 'f'.repeat(64) };
    await queue('run-missing', [ref]);
    await executeRunCommand(deps, 'run-missing', parent, new AbortController().signal);
    const { events } = await readRunLog(bus, 'run-missing');
    expect(events.find((e) => e.type === 'model.failed')).toMatchObject({ data: { error: { code: 'file_not_found' } } });
    expect(events.find((e) => e.type === 'model.completed')).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: 'run.failed', data: { error: { code: 'file_not_found' } } });
  });

  it('vouches for files a tool returns: held bytes reach the model, a made-up reference fails the call', async () => {
    const stored = await putFileBytes(bus, bytes);
    const held: FileRef = {
      type: 'file',
      fileId: `file_${'t'.repeat(26)}`,
      mediaType: 'image/png',
      bytes: stored.bytes,
      sha256: stored.sha256,
    };
    const madeUp: FileRef = { ...held, fileId: `file_${'u'.repeat(26)}`, sha256: 'e'.repeat(64) };
    const tools: RunExecutorDeps['tools'] = {
      specs: (names) => names.map((name) => ({ name, description: name, inputSchema: { type: 'object' } })),
      call: async (name) => ({ chart: name === 'render' ? held : madeUp }),
    };
    for (const [runId, tool] of [
      ['run-tool-held', 'render'],
      ['run-tool-made-up', 'invent'],
    ]) {
      const definition = {
        kind: 'graph',
        nodes: [
          {
            id: 'agent',
            type: 'agent',
            model: 'offline:script',
            prompt: 'Chart it',
            tools: [tool],
            script: [{ calls: [{ tool }] }, { answer: 'done' }],
          },
        ],
      };
      await new RunLogWriter(bus, runId, EMPTY_LOG).write({
        type: 'run.queued',
        spanId: 'root',
        path: 'root',
        data: { workflow: { name: 'w', version: 1 }, input: null, state: { input: null }, definition },
      });
      await executeRunCommand({ ...deps, tools }, runId, parent, new AbortController().signal);
    }
    const calls = async (runId: string) => (await readRunLog(bus, runId)).events;
    const heldEvents = await calls('run-tool-held');
    const second = heldEvents.filter((e): e is RunEventOf<'model.started'> => e.type === 'model.started')[1];
    expect(second.data.attachments).toEqual([held]);
    expect(heldEvents.at(-1)).toMatchObject({ type: 'run.completed' });
    const madeUpEvents = await calls('run-tool-made-up');
    expect(madeUpEvents.find((e) => e.type === 'tool.returned')).toMatchObject({
      data: { error: { code: 'tool_failed', message: expect.stringContaining('whose bytes the runner does not hold') } },
    });
    expect(madeUpEvents.filter((e): e is RunEventOf<'model.started'> => e.type === 'model.started')[1].data.attachments).toBeUndefined();
  });
});
