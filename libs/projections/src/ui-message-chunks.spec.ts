import type { RunEvent, RunEventDraft } from '@spindle/contracts';
import { completedRunDrafts, queued, runLog } from './run-events.fixture';
import { endsUiMessage, uiMessageChunksOf } from './ui-message-chunks';

const runId = '01JQ0000000000000000000000';
const root = { spanId: 'root', path: 'root' };
const chunksOf = (events: RunEvent[]) => events.flatMap((e, i) => uiMessageChunksOf(e, events.slice(0, i + 1)));

describe("a run's log as the AI SDK's UI message stream", () => {
  it('gives each node a data part updated in place, each model call a step with its text, and finishes', () => {
    const chunks = chunksOf(runLog(runId, completedRunDrafts()));
    expect(chunks.map((c) => c.type)).toEqual([
      'data-node',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'finish-step',
      'data-node',
      ...chunks.slice(7).map((c) => c.type),
    ]);
    const nodes = chunks.filter((c) => c.type === 'data-node');
    expect(nodes.map((c) => [c.id, (c.data as { status: string }).status])).toEqual([
      ['span-reply', 'started'],
      ['span-reply', 'completed'],
    ]);
    expect(chunks.find((c) => c.type === 'text-delta')).toEqual({ type: 'text-delta', id: 'span-model', delta: 'hello' });
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    expect(chunks.filter(endsUiMessage)).toHaveLength(1);
  });

  it('turns tool calls into dynamic tool parts, and ends failed, canceled and waiting runs in their own way', () => {
    const tools: RunEventDraft[] = [
      queued(),
      { type: 'tool.called', nodeId: 'a', spanId: 's', path: 'root/a', data: { name: 'calc', callId: 'c1', arguments: { x: 1 } } },
      {
        type: 'tool.returned',
        nodeId: 'a',
        spanId: 's',
        path: 'root/a',
        data: { name: 'calc', callId: 'c1', error: { code: 'tool_failed', message: 'bad x' }, durationMs: 1 },
      },
    ];
    expect(chunksOf(runLog(runId, tools))).toEqual([
      { type: 'tool-input-available', toolCallId: 'c1', toolName: 'calc', input: { x: 1 }, dynamic: true },
      { type: 'tool-output-error', toolCallId: 'c1', errorText: 'bad x', dynamic: true },
    ]);
    const failed = chunksOf(
      runLog(runId, [
        queued(),
        { type: 'run.failed', ...root, data: { error: { code: 'provider_error', message: 'down' }, durationMs: 1 } },
      ]),
    );
    expect(failed).toEqual([{ type: 'error', errorText: 'provider_error: down' }]);
    expect(chunksOf(runLog(runId, [queued(), { type: 'run.canceled', ...root, data: { reason: 'stop' } }]))).toEqual([
      { type: 'abort', reason: 'stop' },
    ]);
    const waiting = chunksOf(
      runLog(runId, [
        queued(),
        {
          type: 'input.requested',
          nodeId: 'ask',
          spanId: 's-ask',
          path: 'root/ask',
          data: { requestId: 'req-1', prompt: 'ok?', form: { kind: 'boolean' }, mode: 'single' },
        },
        { type: 'run.awaiting', ...root, data: { reason: 'input', requestIds: ['req-1'] } },
      ]),
    );
    expect(waiting).toEqual([
      {
        type: 'data-awaiting',
        id: `${runId}-3`,
        data: { reason: 'input', requests: [{ requestId: 'req-1', kind: 'input', prompt: 'ok?', form: { kind: 'boolean' } }] },
      },
      { type: 'finish', finishReason: 'other' },
    ]);
  });

  it('gives a call’s reasoning its own reasoning part, before the text', () => {
    const drafts = completedRunDrafts();
    const completed = drafts[4] as Extract<RunEventDraft, { type: 'model.completed' }>;
    drafts[4] = { ...completed, data: { ...completed.data, reasoning: 'Greet back.' } };
    const chunks = chunksOf(runLog(runId, drafts)).filter((c) => /^(reasoning|text)-/.test(c.type));
    expect(chunks).toEqual([
      { type: 'reasoning-start', id: 'span-model:reasoning' },
      { type: 'reasoning-delta', id: 'span-model:reasoning', delta: 'Greet back.' },
      { type: 'reasoning-end', id: 'span-model:reasoning' },
      { type: 'text-start', id: 'span-model' },
      { type: 'text-delta', id: 'span-model', delta: 'hello' },
      { type: 'text-end', id: 'span-model' },
    ]);
  });
});
