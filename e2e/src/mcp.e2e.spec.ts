import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ErrorCode,
  RELATED_TASK_META_KEY,
  ElicitRequestSchema,
  type CallToolResult,
  type ClientCapabilities,
  type ElicitRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { RunEvent, RunSummary } from '@spindle/contracts';
import { eventually, providerGate, startStack, type Stack } from '@spindle/testing';

/** Issue 16: an MCP client (the SDK's own) sees each workflow as a tool, calls it, watches it and cancels it. */

const parameters = {
  type: 'object',
  properties: { city: { type: 'string', minLength: 1 } },
  required: ['city'],
  additionalProperties: false,
};
const weather = {
  kind: 'graph',
  description: 'Tomorrow’s weather for a city.',
  parameters,
  nodes: [
    { id: 'look_up', type: 'set', values: { asked: true } },
    { id: 'forecast', type: 'agent', model: 'compatible:fake-model', prompt: 'weather, please', output_key: 'forecast' },
  ],
  edges: [{ from: 'look_up', to: 'forecast' }],
};
const booking = {
  kind: 'graph',
  nodes: [
    { id: 'ask', type: 'human', prompt: 'Book the table for two?', form: 'boolean' },
    { id: 'note', type: 'human', prompt: 'Any wishes?', form: 'text' },
    { id: 'done', type: 'set', values: { booked: true } },
  ],
  edges: [
    { from: 'ask', to: 'note' },
    { from: 'note', to: 'done' },
  ],
};
const echo = {
  kind: 'graph',
  nodes: [{ id: 'say', type: 'agent', model: 'compatible:fake-model', prompt: '{{input}}', output_key: 'said' }],
};

describe('MCP: workflows as tools over streamable HTTP', () => {
  let stack: Stack;
  let acmeKey: string;
  const gate = providerGate();
  let modelCalls = 0;
  const clients: Client[] = [];

  const connect = async (key: string, capabilities: ClientCapabilities = {}, viaFetch?: typeof fetch): Promise<Client> => {
    const client = new Client({ name: 'spindle-e2e', version: '1.0.0' }, { capabilities });
    const url = new URL(`${stack.gatewayUrl}/v1/mcp`);
    await client.connect(
      new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${key}` } }, fetch: viaFetch }),
    );
    clients.push(client);
    return client;
  };
  const runsOf = async (workflow: string) =>
    ((await (await stack.api(`/v1/runs?workflow=${workflow}`)).json()) as { runs: RunSummary[] }).runs;
  const post = (body: unknown, headers: Record<string, string>) =>
    fetch(`${stack.gatewayUrl}/v1/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.adminKey}`, ...headers },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    stack = await startStack();
    stack.fake.reply = async () => {
      modelCalls++;
      await gate.passed();
      return { text: 'sunny, 21 °C' };
    };
    for (const [name, definition] of Object.entries({ weather, echo, booking }))
      expect((await stack.api(`/v1/workflows/${name}`, { method: 'PUT', body: JSON.stringify(definition) })).status).toBe(201);
    expect((await stack.api('/v1/tenants', { method: 'POST', body: JSON.stringify({ id: 'acme', name: 'Acme' }) })).status).toBe(201);
    const made = await stack.api('/v1/keys', {
      method: 'POST',
      body: JSON.stringify({ name: 'acme tools', scopes: ['runs:read', 'runs:write'], tenant: 'acme' }),
    });
    acmeKey = ((await made.json()) as { key: string }).key;
  });
  afterEach(() => gate.release());
  afterAll(async () => {
    for (const client of clients) await client.close();
    await stack?.stop();
  });

  it("lists the tenant's workflows as tools, a workflow's parameters being the tool's input schema", async () => {
    const client = await connect(stack.adminKey);
    expect(client.getServerVersion()).toMatchObject({ name: 'spindle' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['booking', 'echo', 'weather']);
    expect(tools[2]).toMatchObject({ name: 'weather', description: weather.description, inputSchema: parameters });
    expect(tools[0]!.inputSchema).toMatchObject({ type: 'object', properties: { input: {} }, additionalProperties: false });
  });

  it('runs a workflow for a tool call, sends a progress notification as each node ends, and answers its output', async () => {
    const client = await connect(stack.adminKey);
    const progress: string[] = [];
    const result = (await client.callTool({ name: 'weather', arguments: { city: 'Oslo' } }, undefined, {
      onprogress: (p) => progress.push(String(p.message)),
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ forecast: 'sunny, 21 °C', parameters: { city: 'Oslo' } });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
    expect(progress).toEqual(['look_up completed', 'forecast completed']);
    // The run is an ordinary run: in the list, with its log, started by the caller.
    const runId = String(result._meta?.['io.spindle/runId']);
    const { events } = (await (await stack.api(`/v1/runs/${runId}/events`)).json()) as { events: RunEvent[] };
    expect(events[0]).toMatchObject({ type: 'run.queued', data: { parameters: { city: 'Oslo' } } });
    expect(events.at(-1)?.type).toBe('run.completed');
  });

  it('refuses an unknown tool and arguments that do not fit as JSON-RPC errors, starting nothing', async () => {
    const client = await connect(stack.adminKey);
    const before = (await runsOf('weather')).length;
    await expect(client.callTool({ name: 'no-such-workflow', arguments: {} })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      // The client says "MCP error -32602:" once: the server's message is the bare sentence.
      message: 'MCP error -32602: unknown tool "no-such-workflow": this tenant has no workflow of that name',
    });
    await expect(client.callTool({ name: 'weather', arguments: { city: '' } })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining('city'),
    });
    await expect(client.callTool({ name: 'echo', arguments: { text: 'x' } })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    expect(await runsOf('weather')).toHaveLength(before);
  });

  it('cancels the run when the client cancels the call, saying who canceled it', async () => {
    const client = await connect(stack.adminKey);
    gate.hold();
    const callsBefore = modelCalls;
    const canceling = new AbortController();
    const call = client.callTool({ name: 'echo', arguments: { input: 'wait for me' } }, undefined, { signal: canceling.signal });
    // The call is in the model when it is canceled: the provider holds it until the run has seen the cancel.
    const run = await eventually(async () => {
      const [latest] = await runsOf('echo');
      expect(latest?.status).toBe('running');
      return latest!;
    }, 200);
    await eventually(async () => expect(modelCalls).toBeGreaterThan(callsBefore), 200);
    canceling.abort('the user stopped it');
    await expect(call).rejects.toThrow();
    // Still held: the run ends canceled because of the cancel, not because the model answered.
    await eventually(async () => expect((await runsOf('echo'))[0]).toMatchObject({ runId: run.runId, status: 'canceled' }), 200);
    gate.release();
    const { events } = (await (await stack.api(`/v1/runs/${run.runId}/events`)).json()) as { events: RunEvent[] };
    expect(events.at(-1)).toMatchObject({
      type: 'run.canceled',
      data: { reason: expect.stringContaining('the MCP client canceled the tool call'), canceledBy: { kind: 'key' } },
    });
  });

  it('runs a call as a task when asked: the task at once, polled while the model works, the result once the run ends', async () => {
    const client = await connect(stack.adminKey);
    expect(new Set((await client.listTools()).tools.map((t) => t.execution?.taskSupport))).toEqual(new Set(['optional']));
    gate.hold();
    const stream = client.experimental.tasks.callToolStream({ name: 'weather', arguments: { city: 'Bergen' } }, CallToolResultSchema, {
      task: { ttl: 60_000 },
    });
    const seen: Array<{ type: string; status?: string }> = [];
    let result: CallToolResult | undefined;
    for await (const message of stream) {
      if (message.type === 'error') throw message.error;
      if (message.type === 'result') result = message.result as CallToolResult;
      else seen.push({ type: message.type, status: message.task.status });
      // The model is held until the client has seen the task working; then it answers.
      if (message.type === 'taskStatus' && message.task.status === 'working') gate.release();
    }
    expect(seen[0]).toEqual({ type: 'taskCreated', status: 'working' });
    expect(seen.at(-1)).toEqual({ type: 'taskStatus', status: 'completed' });
    expect(result?.structuredContent).toMatchObject({ forecast: 'sunny, 21 °C', parameters: { city: 'Bergen' } });
    // The task is the run: its id is the run's, named on the result too.
    const taskId = String((result?._meta?.[RELATED_TASK_META_KEY] as { taskId: string }).taskId);
    expect(result?._meta?.['io.spindle/runId']).toBe(taskId);
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'completed', ttl: null });
  });

  it('cancels a task’s run, refuses to cancel it twice, and shows no one else’s or unknown tasks', async () => {
    const client = await connect(stack.adminKey);
    gate.hold();
    const created = await client.request(
      { method: 'tools/call', params: { name: 'echo', arguments: { input: 'a long one' }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    expect(created.task.status).toBe('working');
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    expect(cancelled).toMatchObject({ taskId, status: 'cancelled' });
    gate.release();
    await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining('has already ended (cancelled)'),
    });
    const result = (await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as CallToolResult;
    expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('the MCP client cancelled the task') }] });
    const acme = await connect(acmeKey);
    for (const id of [taskId, '01JQ0000000000000000000000', 'not-a-run'])
      await expect(acme.experimental.tasks.getTask(id)).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  });

  it('asks a client that takes elicitations each question of a person, and the run goes on with the answers', async () => {
    const client = await connect(stack.adminKey, { elicitation: {} });
    const asked: ElicitRequest['params'][] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return asked.length === 1
        ? { action: 'accept', content: { approved: true } }
        : { action: 'accept', content: { text: 'by the window' } };
    });
    const result = (await client.callTool({ name: 'booking', arguments: {} })) as CallToolResult;
    expect(asked.map((p) => [p.message, 'requestedSchema' in p && p.requestedSchema])).toEqual([
      ['Book the table for two?', { type: 'object', properties: { approved: { type: 'boolean', title: 'Yes' } }, required: ['approved'] }],
      ['Any wishes?', { type: 'object', properties: { text: { type: 'string', title: 'Answer' } }, required: ['text'] }],
    ]);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ booked: true });
    // The answers are the run's, recorded as the caller's.
    const runId = String(result._meta?.['io.spindle/runId']);
    const { events } = (await (await stack.api(`/v1/runs/${runId}/events`)).json()) as { events: RunEvent[] };
    expect(events.filter((e) => e.type === 'input.answered').map((e) => (e.data as { answer: unknown }).answer)).toEqual([
      { approved: true },
      { text: 'by the window' },
    ]);
  });

  it('withdraws a question a person answered at /v1/requests meanwhile, and asks the next', async () => {
    const client = await connect(stack.adminKey, { elicitation: {} });
    const withdrawn: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      if (request.params.message === 'Any wishes?') return { action: 'accept', content: { text: 'none' } };
      // The client's user leaves the first question open; it is answered elsewhere, and withdrawn.
      await new Promise((resolve) => extra.signal.addEventListener('abort', resolve, { once: true }));
      withdrawn.push(request.params.message);
      return { action: 'cancel' };
    });
    // The inbox is a projection: an earlier test's question may still read pending there for a moment.
    const earlier = new Set((await runsOf('booking')).map((r) => r.runId));
    const call = client.callTool({ name: 'booking', arguments: {} }) as Promise<CallToolResult>;
    const open = await eventually(async () => {
      const { requests } = (await (await stack.api('/v1/requests')).json()) as {
        requests: Array<{ runId: string; requestId: string; prompt: string; status: string }>;
      };
      const waiting = requests.find((r) => r.prompt === 'Book the table for two?' && r.status === 'pending' && !earlier.has(r.runId));
      expect(waiting).toBeDefined();
      return waiting!;
    }, 200);
    const answered = await stack.api(`/v1/runs/${open.runId}/requests/${open.requestId}/respond`, {
      method: 'POST',
      body: JSON.stringify({ approved: true }),
    });
    expect(answered.status).toBeLessThan(300);
    const result = await call;
    expect(withdrawn).toEqual(['Book the table for two?']);
    expect(result.structuredContent).toMatchObject({ booked: true });
  });

  it('takes the answers and the cancellation that reach another gateway than the one holding the call', async () => {
    const other = await stack.startService('gateway');
    // A load balancer with no sticky sessions: the client's answers and cancellations go to the other gateway.
    const aside: typeof fetch = (input, init) => {
      const message = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : {};
      const elsewhere = message.method === undefined || message.method === 'notifications/cancelled';
      return fetch(elsewhere ? String(input).replace(stack.gatewayUrl, `http://127.0.0.1:${other.port}`) : input, init);
    };
    const client = await connect(stack.adminKey, { elicitation: {} }, aside);
    client.setRequestHandler(ElicitRequestSchema, async (request) =>
      request.params.message === 'Any wishes?'
        ? { action: 'accept', content: { text: 'quiet' } }
        : { action: 'accept', content: { approved: true } },
    );
    const booked = (await client.callTool({ name: 'booking', arguments: {} })) as CallToolResult;
    expect(booked.structuredContent).toMatchObject({ booked: true });
    gate.hold();
    const canceling = new AbortController();
    const call = client.callTool({ name: 'echo', arguments: { input: 'cancel me elsewhere' } }, undefined, { signal: canceling.signal });
    const run = await eventually(async () => {
      const [latest] = await runsOf('echo');
      expect(latest?.status).toBe('running');
      return latest!;
    }, 200);
    canceling.abort('stop');
    await expect(call).rejects.toThrow();
    await eventually(async () => expect((await runsOf('echo'))[0]).toMatchObject({ runId: run.runId, status: 'canceled' }), 200);
  });

  it('says where to answer when the client declines the question, or takes no elicitations, and leaves the request open', async () => {
    const declining = await connect(stack.adminKey, { elicitation: {} });
    declining.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));
    const plain = await connect(stack.adminKey);
    for (const client of [declining, plain]) {
      const result = (await client.callTool({ name: 'booking', arguments: {} })) as CallToolResult;
      expect(result.structuredContent).toMatchObject({ status: 'awaiting', reason: 'input', requestIds: [expect.any(String)] });
      const runId = String(result._meta?.['io.spindle/runId']);
      const { events } = (await (await stack.api(`/v1/runs/${runId}/events`)).json()) as { events: RunEvent[] };
      expect(events.at(-1)?.type).toBe('run.awaiting');
    }
  });

  it("shows another tenant none of this tenant's tools", async () => {
    const acme = await connect(acmeKey);
    expect((await acme.listTools()).tools).toEqual([]);
    await expect(acme.callTool({ name: 'weather', arguments: { city: 'Oslo' } })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  });

  it('lets a read-only key list the tools and read a task, and refuses it a tool call (runs:write), starting nothing', async () => {
    const made = await stack.api('/v1/keys', { method: 'POST', body: JSON.stringify({ name: 'mcp reader', scopes: ['runs:read'] }) });
    const reader = await connect(((await made.json()) as { key: string }).key);
    expect((await reader.listTools()).tools.map((t) => t.name)).toContain('weather');
    const before = (await runsOf('echo')).length;
    await expect(reader.callTool({ name: 'echo', arguments: { input: 'x' } })).rejects.toThrow(/403|runs:write/);
    expect((await runsOf('echo')).length).toBe(before);
  });

  it("answers what the transport does not offer or cannot read in HTTP's and JSON-RPC's own terms", async () => {
    const get = await fetch(`${stack.gatewayUrl}/v1/mcp`, {
      headers: { authorization: `Bearer ${stack.adminKey}`, accept: 'text/event-stream' },
    });
    expect([get.status, get.headers.get('allow'), ((await get.json()) as { code: string }).code]).toEqual([
      405,
      'POST',
      'method_not_allowed',
    ]);
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    // Without text/event-stream in Accept the transport cannot answer a request that may stream.
    const notAcceptable = await post(list, { accept: 'application/json' });
    expect(notAcceptable.status).toBe(406);
    expect(await notAcceptable.json()).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
    const notJsonRpc = await post({ hello: 'there' }, { accept: 'application/json, text/event-stream' });
    expect(notJsonRpc.status).toBe(400);
    expect(await notJsonRpc.json()).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number), message: expect.any(String) } });
    // A body that is not JSON at all is JSON-RPC's parse error, not the API's problem+json.
    const notJson = await fetch(`${stack.gatewayUrl}/v1/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${stack.adminKey}`,
      },
      body: '{"jsonrpc": "2.0", "id": 1, "method": "tools/li',
    });
    expect([notJson.status, await notJson.json()]).toEqual([
      400,
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
    ]);
    const anonymous = await fetch(`${stack.gatewayUrl}/v1/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect([anonymous.status, anonymous.headers.get('content-type')]).toEqual([401, expect.stringContaining('application/problem+json')]);
  });
});
