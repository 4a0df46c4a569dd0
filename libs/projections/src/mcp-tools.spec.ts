import type { RunEventDraft } from '@spindle/contracts';
import { MCP_RUN_META_KEY, mcpTaskOf, mcpToolOf, startBodyOfToolCall, toolCallStepOf } from './mcp-tools';
import { completedRunDrafts, queued, runLog } from './run-events.fixture';

const runId = '01JQ0000000000000000000000';
const root = { spanId: 'root', path: 'root' };
const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

describe('workflows as MCP tools', () => {
  it("takes a workflow's description and parameters schema as the tool's, and { input } without a schema", () => {
    expect(mcpToolOf({ name: 'weather', version: 3, definition: { kind: 'graph', description: 'Forecasts.', parameters } })).toEqual({
      name: 'weather',
      description: 'Forecasts.',
      inputSchema: parameters,
      execution: { taskSupport: 'optional' },
    });
    const plain = mcpToolOf({ name: 'echo', version: 1, definition: { kind: 'graph', nodes: [] } });
    expect(plain.description).toContain('"echo" (version 1)');
    expect(plain.inputSchema).toEqual({ type: 'object', properties: { input: expect.any(Object) }, additionalProperties: false });
    // A schema without a type still describes an object of arguments.
    expect(mcpToolOf({ name: 'x', version: 1, definition: { parameters: { properties: {} } } }).inputSchema.type).toBe('object');
  });

  it('starts a run with the arguments as parameters, or as { input } only, and refuses other arguments', () => {
    expect(startBodyOfToolCall({ parameters }, { city: 'Oslo' })).toEqual({ parameters: { city: 'Oslo' } });
    expect(startBodyOfToolCall({}, { input: { q: 1 } })).toEqual({ input: { q: 1 } });
    expect(startBodyOfToolCall({}, {})).toEqual({ input: null });
    expect(startBodyOfToolCall({}, { city: 'Oslo' })).toBeUndefined();
  });
});

describe("a run's log as a tool call", () => {
  it('reports node progress and answers with the output, structured, naming the run', () => {
    const steps = runLog(runId, completedRunDrafts()).map(toolCallStepOf);
    expect(steps.filter((s) => s && 'progress' in s)).toEqual([{ progress: 'reply completed' }]);
    const answer = steps.at(-1);
    expect(answer).toEqual({
      answer: {
        content: [{ type: 'text', text: expect.stringContaining('"answer"') }],
        structuredContent: expect.any(Object),
        _meta: { [MCP_RUN_META_KEY]: runId },
      },
    });
  });

  it('answers a failed or canceled run as a tool error, and a run waiting on a person with where to answer', () => {
    const [failed, canceled, awaiting] = runLog(runId, [
      { type: 'run.failed', ...root, data: { error: { code: 'provider_error', message: 'down' }, durationMs: 5 } },
      { type: 'run.canceled', ...root, data: { reason: 'the MCP client canceled the call' } },
      { type: 'run.awaiting', ...root, data: { reason: 'tool_approval', requestIds: ['req-1'] } },
    ]).map(toolCallStepOf);
    expect(failed).toMatchObject({ answer: { isError: true, content: [{ text: 'the run failed (provider_error): down' }] } });
    expect(canceled).toMatchObject({
      answer: { isError: true, content: [{ text: 'the run was canceled: the MCP client canceled the call' }] },
    });
    expect(awaiting).toMatchObject({
      answer: { structuredContent: { runId, status: 'awaiting', reason: 'tool_approval', requestIds: ['req-1'] } },
    });
    expect(awaiting && 'answer' in awaiting && awaiting.answer.isError).toBeFalsy();
  });
});

describe('a run as an MCP task', () => {
  const started: RunEventDraft = { type: 'run.started', ...root, data: { attempt: 1, worker: 'w1' } };
  const taskAfter = (drafts: RunEventDraft[]) => mcpTaskOf(runLog(runId, [queued(), ...drafts]));

  it('is working from its start, input_required while it waits for a person, and working again once answered', () => {
    expect(taskAfter([])).toMatchObject({ taskId: runId, status: 'working', ttl: null, pollInterval: 1_000 });
    const waiting: RunEventDraft = { type: 'run.awaiting', ...root, data: { reason: 'input', requestIds: ['req-1'] } };
    expect(taskAfter([started, waiting])).toMatchObject({
      status: 'input_required',
      statusMessage: expect.stringContaining('/v1/requests'),
    });
    const resumed: RunEventDraft = { type: 'run.resumed', ...root, data: { attempt: 1, worker: 'w1', reason: 'answered' } };
    const task = taskAfter([started, waiting, resumed]);
    expect(task.status).toBe('working');
    expect(Date.parse(task.lastUpdatedAt)).toBeGreaterThan(Date.parse(task.createdAt));
  });

  it('ends completed, failed with the error, or cancelled with the reason', () => {
    expect(taskAfter(completedRunDrafts().slice(1))).toMatchObject({ status: 'completed' });
    expect(
      taskAfter([{ type: 'run.failed', ...root, data: { error: { code: 'provider_error', message: 'down' }, durationMs: 5 } }]),
    ).toMatchObject({ status: 'failed', statusMessage: 'the run failed (provider_error): down' });
    expect(taskAfter([{ type: 'run.canceled', ...root, data: { reason: 'stop' } }])).toMatchObject({
      status: 'cancelled',
      statusMessage: 'the run was canceled: stop',
    });
  });
});
