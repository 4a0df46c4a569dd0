import type { RunEvent, RunEventDraft } from '@spindle/contracts';
import { AgUiStream, interruptIdOf, parseInterruptId } from './ag-ui-events';
import { completedRunDrafts, queued, runLog } from './run-events.fixture';

const runId = '01JQ0000000000000000000000';
const ids = { threadId: 'thread-1', runId: 'client-run-1' };
const root = { spanId: 'root', path: 'root' };

/** Every AG-UI event a log becomes, each with the log up to its run event. */
const streamOf = (events: RunEvent[]) => {
  const stream = new AgUiStream(ids);
  return events.flatMap((e, i) => stream.next(e, events.slice(0, i + 1)));
};

describe("a run's log as AG-UI events", () => {
  it('opens with the state, steps each node, says the model text whole, and finishes with the output', () => {
    const stream = streamOf(runLog(runId, completedRunDrafts()));
    expect(stream.map((e) => e.type)).toEqual([
      'STATE_SNAPSHOT',
      'STEP_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'STEP_FINISHED',
      ...stream.slice(6).map((e) => e.type),
    ]);
    expect(stream.find((e) => e.type === 'TEXT_MESSAGE_CONTENT')).toMatchObject({ delta: 'hello', messageId: `${runId}.span-model` });
    expect(stream.at(-1)).toMatchObject({ type: 'RUN_FINISHED', ...ids, outcome: { type: 'success' }, result: expect.any(Object) });
    expect(stream.every((e) => typeof e.timestamp === 'number')).toBe(true);
  });

  it('turns a tool call into start, args, end and result, and a checkpoint into a JSON Patch of what changed', () => {
    const drafts: RunEventDraft[] = [
      queued(),
      { type: 'tool.called', nodeId: 'a', spanId: 's-t', path: 'root/a', data: { name: 'calc', callId: 'c1', arguments: { x: 1 } } },
      { type: 'tool.returned', nodeId: 'a', spanId: 's-t', path: 'root/a', data: { name: 'calc', callId: 'c1', result: 2, durationMs: 1 } },
      {
        type: 'checkpoint.saved',
        ...root,
        data: { checkpointId: 'cp', step: 1, changes: { 'a/b': 1, total: 2 }, frontier: [], graphHash: 'h' },
      },
    ];
    const stream = streamOf(runLog(runId, drafts));
    expect(stream.slice(1).map(({ timestamp: _, ...e }) => e)).toEqual([
      { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'calc' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"x":1}' },
      { type: 'TOOL_CALL_END', toolCallId: 'c1' },
      { type: 'TOOL_CALL_RESULT', messageId: `${runId}.c1:result`, toolCallId: 'c1', role: 'tool', content: '2' },
      {
        type: 'STATE_DELTA',
        delta: [
          { op: 'add', path: '/a~1b', value: 1 },
          { op: 'add', path: '/total', value: 2 },
        ],
      },
    ]);
  });

  it('finishes a run waiting for a person with an interrupt per open request, whose id the resume names', () => {
    const drafts: RunEventDraft[] = [
      queued(),
      {
        type: 'approval.requested',
        nodeId: 'agent',
        spanId: 's-a',
        path: 'root/agent',
        data: {
          requestId: 'req-9',
          prompt: 'Run calc?',
          call: { callId: 'c7', name: 'calc', arguments: { x: 1 }, argumentsHash: 'hash' },
          mode: 'single',
        },
      },
      { type: 'run.awaiting', ...root, data: { reason: 'tool_approval', requestIds: ['req-9'] } },
    ];
    const finished = streamOf(runLog(runId, drafts)).at(-1);
    expect(finished).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: {
        type: 'interrupt',
        interrupts: [{ id: `${runId}:req-9`, reason: 'tool_approval', toolCallId: 'c7', message: 'Run calc?' }],
      },
    });
    expect(parseInterruptId(interruptIdOf(runId, 'req-9'))).toEqual({ runId, requestId: 'req-9' });
    expect(parseInterruptId('no-separator')).toBeUndefined();
  });

  it('ends a failed run with RUN_ERROR and a canceled one as cancelled', () => {
    const failed = streamOf(
      runLog(runId, [
        queued(),
        { type: 'run.failed', ...root, data: { error: { code: 'provider_error', message: 'too slow' }, durationMs: 1 } },
      ]),
    );
    expect(failed.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'provider_error', message: 'too slow' });
    const canceled = streamOf(runLog(runId, [queued(), { type: 'run.canceled', ...root, data: {} }]));
    expect(canceled.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'cancelled' } });
  });
  it('closes the steps a waiting run leaves open, and a stream that takes the run over re-opens them once', () => {
    const ask = { nodeId: 'ask', spanId: 's-ask', path: 'root/ask' };
    const waiting = runLog(runId, [
      queued(),
      { type: 'node.started', ...ask, data: { nodeType: 'human', input: {} } },
      { type: 'input.requested', ...ask, data: { requestId: 'req-1', prompt: 'ok?', form: { kind: 'boolean' }, mode: 'single' } },
      { type: 'run.awaiting', ...root, data: { reason: 'input', requestIds: ['req-1'] } },
    ]);
    expect(streamOf(waiting).map((e) => e.type)).toEqual(['STATE_SNAPSHOT', 'STEP_STARTED', 'STEP_FINISHED', 'RUN_FINISHED']);
    const resumed = runLog(
      runId,
      [
        { type: 'run.resumed', ...root, data: { reason: 'answered', attempt: 1, worker: 'w2' } },
        { type: 'node.started', ...ask, spanId: 's-ask-2', data: { nodeType: 'human', input: {} } },
        { type: 'node.completed', ...ask, spanId: 's-ask-2', data: { nodeType: 'human', output: {}, durationMs: 1 } },
      ],
      waiting.length + 1,
    );
    const stream = new AgUiStream(ids);
    const takeOver = stream.takeOver(waiting);
    const log = [...waiting];
    const after = resumed.flatMap((e) => (log.push(e), stream.next(e, log)));
    expect([...takeOver, ...after].map((e) => [e.type, e.stepName])).toEqual([
      ['STEP_STARTED', 'ask'],
      ['STEP_FINISHED', 'ask'],
    ]);
  });

  it('streams a call’s reasoning and text from its tokens as they come, and says what they missed from the log', () => {
    const drafts = completedRunDrafts();
    const completed = drafts[4] as Extract<RunEventDraft, { type: 'model.completed' }>;
    drafts[4] = { ...completed, data: { ...completed.data, reasoning: 'Greet back.', text: 'hello' } };
    const events = runLog(runId, drafts);
    const stream = new AgUiStream(ids);
    const token = (callIndex: number, delta: string, part?: 'reasoning') => ({
      runId,
      nodeId: 'reply',
      spanId: 'span-reply',
      afterSeq: 3,
      index: callIndex,
      delta,
      callSeq: 4,
      callIndex,
      ...(part && { part }),
    });
    const out = [
      ...events.slice(0, 4).flatMap((e, i) => stream.next(e, events.slice(0, i + 1))),
      ...stream.token(token(0, 'Greet ', 'reasoning')),
      ...stream.token(token(1, 'hel')),
      ...events.slice(4).flatMap((e, i) => stream.next(e, events.slice(0, i + 5))),
    ];
    expect(out.filter((e) => /^(REASONING|TEXT)_/.test(e.type)).map((e) => [e.type, e.messageId, e.delta])).toEqual([
      ['REASONING_START', `${runId}.span-model:reasoning`, undefined],
      ['REASONING_MESSAGE_START', `${runId}.span-model:reasoning`, undefined],
      ['REASONING_MESSAGE_CONTENT', `${runId}.span-model:reasoning`, 'Greet '],
      ['REASONING_MESSAGE_END', `${runId}.span-model:reasoning`, undefined],
      ['REASONING_END', `${runId}.span-model:reasoning`, undefined],
      ['TEXT_MESSAGE_START', `${runId}.span-model`, undefined],
      ['TEXT_MESSAGE_CONTENT', `${runId}.span-model`, 'hel'],
      // The log says the rest: the open text goes on first, then what the reasoning missed, as a message of its own.
      ['TEXT_MESSAGE_CONTENT', `${runId}.span-model`, 'lo'],
      ['TEXT_MESSAGE_END', `${runId}.span-model`, undefined],
      ['REASONING_START', `${runId}.span-model:reasoning:1`, undefined],
      ['REASONING_MESSAGE_START', `${runId}.span-model:reasoning:1`, undefined],
      ['REASONING_MESSAGE_CONTENT', `${runId}.span-model:reasoning:1`, 'back.'],
      ['REASONING_MESSAGE_END', `${runId}.span-model:reasoning:1`, undefined],
      ['REASONING_END', `${runId}.span-model:reasoning:1`, undefined],
    ]);
  });
});
