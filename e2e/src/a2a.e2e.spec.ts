import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { TaskState, type Task } from '@a2a-js/sdk';
import type { RunEvent } from '@spindle/contracts';
import { eventually, metricValue, providerGate, startStack, type Stack } from '@spindle/testing';
import { heartbeatWatch } from './heartbeats';

/**
 * Issue 16: A2A with the official JS SDK's client (which speaks A2A 0.3's JSON-RPC binding to an
 * agent whose card says 0.3): each workflow is an agent, each task a run, input-required a
 * request to a person that the next message answers.
 */

const weather = {
  kind: 'graph',
  description: 'Tomorrow’s weather for a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  nodes: [{ id: 'forecast', type: 'agent', model: 'compatible:fake-model', prompt: 'weather, please', output_key: 'forecast' }],
};
const confirm = {
  kind: 'graph',
  nodes: [
    { id: 'ask', type: 'human', prompt: 'Book the table?', form: 'boolean' },
    { id: 'done', type: 'set', values: { booked: true } },
  ],
  edges: [{ from: 'ask', to: 'done' }],
};

describe('A2A: workflows as agents', () => {
  let stack: Stack;
  const gate = providerGate();
  let modelCalls = 0;

  const authed =
    (key: string): typeof fetch =>
    (input, init) =>
      fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), authorization: `Bearer ${key}` } });
  const agent = (name: string, key = stack.adminKey, fetchImpl: typeof fetch = authed(key)): Promise<Client> => {
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: true } }),
      }),
    );
    return factory.createFromUrl(`${stack.gatewayUrl}/v1/a2a/${name}/`, '.well-known/agent-card.json');
  };
  const userMessage = (parts: Array<{ text: string } | { data: Record<string, unknown> }>, taskId = '') => ({
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    contextId: '',
    taskId,
    role: 1,
    parts: parts.map((p) => ({
      content: 'text' in p ? { $case: 'text' as const, value: p.text } : { $case: 'data' as const, value: p.data },
      metadata: undefined,
      filename: '',
      mediaType: '',
    })),
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  });
  /** `message/send`, answered with a task (a message would be a failure here). */
  const send = async (client: Client, message: ReturnType<typeof userMessage>): Promise<Task> => {
    const answer = await client.sendMessage({ tenant: '', message: message as never, configuration: undefined, metadata: undefined });
    if (!('status' in answer)) throw new Error(`answered with a message, not a task: ${JSON.stringify(answer)}`);
    return answer;
  };
  const rpc = async (name: string, body: unknown) =>
    (await fetch(`${stack.gatewayUrl}/v1/a2a/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.adminKey}` },
      body: JSON.stringify(body),
    })) as Response;

  beforeAll(async () => {
    stack = await startStack();
    stack.fake.reply = async () => {
      modelCalls++;
      await gate.passed();
      return { text: 'sunny' };
    };
    for (const [name, definition] of Object.entries({ weather, confirm }))
      expect((await stack.api(`/v1/workflows/${name}`, { method: 'PUT', body: JSON.stringify(definition) })).status).toBe(201);
  });
  afterEach(() => gate.release());
  afterAll(async () => {
    await stack?.stop();
  });

  it("serves each workflow's agent card: one skill, JSON-RPC at its own URL, bearer credentials", async () => {
    const res = await fetch(`${stack.gatewayUrl}/v1/a2a/weather/.well-known/agent-card.json`, {
      headers: { authorization: `Bearer ${stack.adminKey}` },
    });
    expect(await res.json()).toMatchObject({
      protocolVersion: '0.3.0',
      name: 'weather',
      url: `${stack.gatewayUrl}/v1/a2a/weather`,
      preferredTransport: 'JSONRPC',
      capabilities: { streaming: true, pushNotifications: false },
      skills: [{ id: 'weather', description: weather.description }],
      security: [{ bearer: [] }],
    });
    expect((await fetch(`${stack.gatewayUrl}/v1/a2a/weather/.well-known/agent-card.json`)).status).toBe(401);
  });

  it('answers a body that is not JSON with JSON-RPC’s parse error', async () => {
    const res = await fetch(`${stack.gatewayUrl}/v1/a2a/weather`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.adminKey}` },
      body: '{"jsonrpc": "2.0", "id": 1, "method": ',
    });
    expect([res.status, await res.json()]).toEqual([200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }]);
  });

  it('lets a read-only key read and follow a task (tasks/get, tasks/resubscribe) and refuses it a message (runs:write)', async () => {
    const made = await stack.api('/v1/keys', { method: 'POST', body: JSON.stringify({ name: 'a2a reader', scopes: ['runs:read'] }) });
    const readerKey = ((await made.json()) as { key: string }).key;
    const task = await send(await agent('weather'), userMessage([{ data: { city: 'Bergen' } }]));
    const reader = await agent('weather', readerKey);
    expect((await reader.getTask({ tenant: '', id: task.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const followed = [];
    for await (const item of reader.resubscribeTask({ tenant: '', id: task.id })) followed.push(item);
    expect(followed.length).toBeGreaterThan(0);
    const refused = await fetch(`${stack.gatewayUrl}/v1/a2a/weather`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${readerKey}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: userMessage([{ text: 'hi' }]) } }),
    });
    expect([refused.status, ((await refused.json()) as { code: string }).code]).toEqual([403, 'forbidden']);
  });

  it('runs a task to its end: the data part is the parameters, the output an artifact, the task a run', async () => {
    const client = await agent('weather');
    const task = await send(client, userMessage([{ data: { city: 'Oslo' } }]));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]!.parts[0]!.content).toMatchObject({
      $case: 'data',
      value: { forecast: 'sunny', parameters: { city: 'Oslo' } },
    });
    const { events } = (await (await stack.api(`/v1/runs/${task.id}/events`)).json()) as { events: RunEvent[] };
    expect(events.at(-1)?.type).toBe('run.completed');
    expect((await client.getTask({ tenant: '', id: task.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('streams the task and its updates, and cancels a task in flight', async () => {
    const client = await agent('weather');
    gate.hold();
    const before = modelCalls;
    const stream = client.sendMessageStream({
      tenant: '',
      message: userMessage([{ data: { city: 'Bergen' } }]) as never,
      configuration: undefined,
      metadata: undefined,
    });
    const first = await stream.next();
    expect(first.value?.payload?.$case).toBe('task');
    const taskId = (first.value!.payload!.value as { id: string }).id;
    // The model holds the run while it is canceled: it ends canceled, not answered.
    await eventually(async () => expect(modelCalls).toBeGreaterThan(before), 200);
    const canceled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined } as never);
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const rest: Array<{ $case?: string; state?: number }> = [];
    for await (const item of stream) {
      const payload = item.payload;
      rest.push({ $case: payload?.$case, state: payload?.$case === 'statusUpdate' ? payload.value.status?.state : undefined });
    }
    expect(rest.at(-1)).toEqual({ $case: 'statusUpdate', state: TaskState.TASK_STATE_CANCELED });
    gate.release();
    await expect(client.cancelTask({ tenant: '', id: taskId, metadata: undefined } as never)).rejects.toThrow(/ended/);
  });

  it('keeps a task stream alive with heartbeats while the run is idle, and the official client reads past them', async () => {
    const watch = heartbeatWatch(authed(stack.adminKey));
    const client = await agent('weather', stack.adminKey, watch.fetch);
    gate.hold();
    const stream = client.sendMessageStream({
      tenant: '',
      message: userMessage([{ data: { city: 'Tromsø' } }]) as never,
      configuration: undefined,
      metadata: undefined,
    });
    const items: Array<{ $case?: string; state?: number }> = [];
    const read = (async () => {
      for await (const { payload } of stream)
        items.push({ $case: payload?.$case, state: payload?.$case === 'statusUpdate' ? payload.value.status?.state : undefined });
    })();
    // The model holds the run: nothing happens on it until a heartbeat has crossed the stream.
    await eventually(async () => expect(watch.seen()).toBe(true), 600);
    gate.release();
    await read;
    expect(items[0]?.$case).toBe('task');
    expect(items.at(-1)).toEqual({ $case: 'statusUpdate', state: TaskState.TASK_STATE_COMPLETED });
  });

  it('lets go of the run when the client of an idle stream leaves, and the run goes on', async () => {
    gate.hold();
    const leaving = new AbortController();
    const res = await fetch(`${stack.gatewayUrl}/v1/a2a/weather`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.adminKey}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'leave',
        method: 'message/stream',
        params: {
          message: { kind: 'message', messageId: `m-leave-${Date.now()}`, role: 'user', parts: [{ kind: 'data', data: { city: 'Bodø' } }] },
        },
      }),
      signal: leaving.signal,
    });
    const reader = res.body!.getReader();
    let seen = '';
    // Read until the task is working: the model holds the run, so nothing more comes until it is let go.
    while (!seen.includes('"state":"working"')) seen += new TextDecoder().decode((await reader.read()).value);
    const taskId = (JSON.parse(seen.slice(seen.indexOf('data: ') + 6, seen.indexOf('\n\n'))) as { result: { id: string } }).result.id;
    // The runs the gateway follows live: this one, while its client is there.
    const readers = async () => {
      const gateway = stack.processes.find((p) => p.name === 'gateway')!;
      return metricValue(await (await fetch(`http://127.0.0.1:${gateway.port}/metrics`)).text(), 'spindle_live_feeds');
    };
    await eventually(async () => expect(await readers()).toBe(1), 200);
    leaving.abort();
    await eventually(async () => expect(await readers()).toBe(0), 200);
    gate.release();
    await eventually(
      async () =>
        expect((await (await stack.api(`/v1/runs/${taskId}`)).json()) as { status: string }).toMatchObject({ status: 'completed' }),
      200,
    );
  });

  it('asks for input as input-required, and the next message on the task answers the person it waits for', async () => {
    const client = await agent('confirm');
    const waiting = await send(client, userMessage([{ text: 'a table for two' }]));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const parts = waiting.status!.message!.parts.map((p: { content?: unknown }) => p.content);
    expect(parts[0]).toEqual({ $case: 'text', value: 'Book the table?' });
    expect(parts[1]).toMatchObject({
      $case: 'data',
      value: { requests: [{ kind: 'input', prompt: 'Book the table?', form: { kind: 'boolean' } }] },
    });
    const answered = await send(client, userMessage([{ data: { approved: true } }], waiting.id));
    expect([answered.id, answered.status?.state]).toEqual([waiting.id, TaskState.TASK_STATE_COMPLETED]);
    expect(answered.artifacts[0]!.parts[0]!.content).toMatchObject({ $case: 'data', value: { booked: true } });
  });

  it("refuses in JSON-RPC's terms: unknown method, bad params, an unknown task or another agent's", async () => {
    const errorOf = async (name: string, body: unknown) =>
      ((await (await rpc(name, body)).json()) as { error?: { code: number } }).error?.code;
    expect(await errorOf('weather', { jsonrpc: '2.0', id: 1, method: 'tasks/teleport', params: {} })).toBe(-32601);
    expect(await errorOf('weather', { jsonrpc: '2.0', id: 2, method: 'message/send', params: { message: { parts: [] } } })).toBe(-32602);
    expect(await errorOf('weather', { jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { id: 'no-such-task' } })).toBe(-32001);
    expect(await errorOf('weather', { id: 4, method: 'tasks/get' })).toBe(-32600);
    expect(await errorOf('weather', { jsonrpc: '2.0', id: 5, method: 'tasks/pushNotificationConfig/set', params: {} })).toBe(-32003);
    // A task of another workflow is not this agent's.
    const taskId = (await send(await agent('weather'), userMessage([{ data: { city: 'Rome' } }]))).id;
    expect(await errorOf('confirm', { jsonrpc: '2.0', id: 6, method: 'tasks/get', params: { id: taskId } })).toBe(-32001);
    // An agent that does not exist is a resource that does not: 404.
    expect((await rpc('no-such-agent', { jsonrpc: '2.0', id: 7, method: 'tasks/get', params: { id: taskId } })).status).toBe(404);
  });
});
