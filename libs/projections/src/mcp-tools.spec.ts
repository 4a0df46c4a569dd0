import type { RunEventDraft } from '@spindle/contracts';
import {
  answerOfElicitation,
  MCP_RUN_META_KEY,
  mcpElicitationOf,
  mcpTaskOf,
  mcpToolOf,
  startBodyOfToolCall,
  toolCallStepOf,
  type OpenRequest,
} from './mcp-tools';
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

describe('a request to a person as an MCP elicitation', () => {
  const input = (form: Extract<OpenRequest, { kind: 'input' }>['form']): OpenRequest => ({
    requestId: 'r1',
    kind: 'input',
    prompt: 'Go?',
    form,
  });
  const call = { callId: 'c1', name: 'refund', arguments: { amount: 40 }, argumentsHash: 'a'.repeat(64) };

  it('asks yes/no, text, plan and flat JSON answers as forms, and answers the request as /v1/requests takes it', () => {
    const yes = input({ kind: 'boolean' });
    expect(mcpElicitationOf(yes)?.requestedSchema.required).toEqual(['approved']);
    expect(answerOfElicitation(yes, { approved: false })).toEqual({ approved: false });
    expect(answerOfElicitation(input({ kind: 'text' }), { text: 'hi' })).toEqual({ text: 'hi' });
    expect(answerOfElicitation(input({ kind: 'plan_review' }), { approved: false, text: 'shorter' })).toEqual({
      approved: false,
      text: 'shorter',
    });
    const schema = { type: 'object', properties: { seats: { type: 'integer' }, name: { type: 'string' } }, required: ['seats'] };
    const json = input({ kind: 'json', schema });
    expect(mcpElicitationOf(json)).toEqual({
      message: 'Go?',
      requestedSchema: { type: 'object', properties: schema.properties, required: ['seats'] },
    });
    expect(answerOfElicitation(json, { seats: 2 })).toEqual({ data: { seats: 2 } });
  });

  it('asks a tool call’s approval showing the call, and answers bound to that exact call', () => {
    const approval: OpenRequest = { requestId: 'r2', kind: 'approval', prompt: 'Refund?', call };
    expect(mcpElicitationOf(approval)?.message).toBe('Refund?\n\nThe call: refund({"amount":40})');
    expect(answerOfElicitation(approval, { approve: true })).toEqual({
      decision: 'approve',
      callId: 'c1',
      name: 'refund',
      argumentsHash: 'a'.repeat(64),
    });
    expect(answerOfElicitation(approval, { approve: false, message: 'too much' })).toMatchObject({
      decision: 'reject',
      message: 'too much',
    });
  });

  it('does not ask what a form cannot: nested JSON answers, or none described', () => {
    expect(mcpElicitationOf(input({ kind: 'json', schema: { type: 'object', properties: { items: { type: 'array' } } } }))).toBeUndefined();
    expect(mcpElicitationOf(input({ kind: 'json' }))).toBeUndefined();
    expect(mcpElicitationOf(input({ kind: 'json', schema: { type: 'array' } }))).toBeUndefined();
  });
});
