import { PublicError } from '@spindle/contracts';
import { validateDefinition } from '../definition/validate-definition';
import { executeRun } from '../interpreter/execute-run';
import { recordingEnvironment, scriptedModel, toolCalls } from '../testing/in-process-ports';

const run = (
  definition: unknown,
  env: ReturnType<typeof recordingEnvironment>['env'],
  state: Record<string, unknown> = { input: 'Where is order 42?' },
) => executeRun({ definition: validateDefinition(definition), state, attempt: 1, worker: 'w' }, env);

const agent = (extra: Record<string, unknown> = {}) => ({
  kind: 'graph',
  nodes: [
    {
      id: 'support',
      type: 'agent',
      model: 'compatible:m',
      instructions: 'Help with orders.',
      tools: ['lookup_order', 'calculator'],
      output_key: 'answer',
      ...extra,
    },
  ],
});

describe('agent node', () => {
  describe('with a memory_key', () => {
    const remembering = (extra: Record<string, unknown> = {}) => agent({ tools: [], memory_key: 'messages', ...extra });

    it('goes on from the remembered conversation and writes it back with this turn, across runs', async () => {
      const model = scriptedModel(['Hi Ada.', 'Your name is Ada.']);
      const first = await run(remembering(), recordingEnvironment({ model }).env, { input: 'I am Ada.' });
      expect(first).toMatchObject({ status: 'completed', output: { answer: 'Hi Ada.' } });
      const second = recordingEnvironment({ model });
      const outcome = await run(remembering(), second.env, {
        ...(first as { output: Record<string, unknown> }).output,
        input: 'Who am I?',
      });
      expect(model.requests[1].messages).toEqual([
        { role: 'user', content: 'I am Ada.' },
        { role: 'assistant', content: 'Hi Ada.' },
        { role: 'user', content: 'Who am I?' },
      ]);
      expect(outcome).toMatchObject({
        status: 'completed',
        output: { messages: [...model.requests[1].messages, { role: 'assistant', content: 'Your name is Ada.' }] },
      });
      // The second run's log holds the whole conversation it sent: it replays without the first run.
      const started = second.events.find((e) => e.type === 'model.started')?.data as unknown as { messages: Array<{ content: string }> };
      expect(started.messages.map((m) => m.content)).toEqual(['I am Ada.', 'Hi Ada.', 'Who am I?']);
    });

    it('keeps at most memory_max_messages, dropping the oldest whole turns', async () => {
      const model = scriptedModel([toolCalls({ name: 'calculator', arguments: { expression: '1+1' } }), 'Two.']);
      const history = [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: 'One.' },
      ];
      const { env } = recordingEnvironment({ model, tools: { calculator: () => 2 } });
      const outcome = await run(remembering({ tools: ['calculator'], memory_max_messages: 4 }), env, {
        input: 'one plus one?',
        messages: history,
      });
      // The new turn is four messages (question, call, result, answer): the older turn goes.
      expect((outcome as unknown as { output: { messages: Array<{ role: string }> } }).output.messages.map((m) => m.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'assistant',
      ]);
    });

    it('fails the node, naming the key, when the state holds something that is not a conversation', async () => {
      const { env } = recordingEnvironment({ model: scriptedModel(['never']) });
      expect(await run(remembering(), env, { input: 'x', messages: [{ role: 'system', content: 'obey' }] })).toMatchObject({
        status: 'failed',
        error: { code: 'validation_failed', nodeId: 'support', message: expect.stringContaining('state.messages is not a conversation') },
      });
    });
  });

  it('runs the tool loop: a failing tool is an observation, the model recovers in round three', async () => {
    const model = scriptedModel([
      toolCalls({ name: 'lookup_order', arguments: { id: '42' } }),
      toolCalls({ name: 'lookup_order', arguments: { id: 'FAIL-42' } }, { name: 'calculator', arguments: { expression: '2*21' } }),
      'Order 42 ships tomorrow; total 42.',
    ]);
    const { env, events } = recordingEnvironment({
      model,
      tools: {
        lookup_order: (args) => {
          if (String(args.id).startsWith('FAIL')) throw new PublicError(`order ${args.id} not found`);
          return { id: args.id, status: 'shipping' };
        },
        calculator: () => 42,
      },
    });
    const outcome = await run(agent(), env);
    expect(outcome).toMatchObject({ status: 'completed', output: { answer: 'Order 42 ships tomorrow; total 42.' } });

    const kinds = events.map((e) => e.type);
    expect(kinds.filter((t) => t === 'model.started')).toHaveLength(3);
    const returned = events.filter((e) => e.type === 'tool.returned');
    expect(returned.map((e) => e.data)).toEqual([
      expect.objectContaining({ name: 'lookup_order', result: { id: '42', status: 'shipping' } }),
      expect.objectContaining({ name: 'lookup_order', error: { code: 'tool_failed', message: 'order FAIL-42 not found' } }),
      expect.objectContaining({ name: 'calculator', result: 42 }),
    ]);
    const node = events.find((e) => e.type === 'node.started');
    for (const e of events.filter((e) => e.type.startsWith('tool.') || e.type.startsWith('model.')))
      expect(e.parentSpanId).toBe(node?.spanId);
    const called = events.filter((e) => e.type === 'tool.called');
    expect(called.map((e) => e.spanId)).toEqual(returned.map((e) => e.spanId));

    // The model saw the failure as a tool result, and each call logged only the messages it added.
    const third = model.requests[2].messages;
    expect(third.at(-2)).toMatchObject({ role: 'tool', toolName: 'lookup_order', isError: true });
    const starts = events.filter((e) => e.type === 'model.started').map((e) => e.data as { prompt?: string; messages?: unknown[] });
    expect(starts[0].prompt).toBe('Where is order 42?');
    expect(starts[1].messages).toHaveLength(2);
    expect(starts[2].messages).toHaveLength(3);
    expect(model.requests[0].tools?.map((t) => t.name)).toEqual(['lookup_order', 'calculator']);
  });

  it('fails the node with max_iterations_exceeded when the model keeps calling tools', async () => {
    const model = scriptedModel([toolCalls({ name: 'calculator', arguments: {} }), toolCalls({ name: 'calculator', arguments: {} })]);
    const { env } = recordingEnvironment({ model, tools: { calculator: () => 1, lookup_order: () => 1 } });
    const outcome = await run(agent({ max_turns: 2 }), env);
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'max_iterations_exceeded', nodeId: 'support' } });
  });

  it('fails the node when it names a tool the runner does not have', async () => {
    const { env } = recordingEnvironment({ model: scriptedModel(['hi']), tools: { calculator: () => 1 } });
    const outcome = await run(agent(), env);
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'tool_not_found' } });
  });
});

describe('tool and router nodes', () => {
  it('calls a tool with templated arguments and routes on the result', async () => {
    const { env, events } = recordingEnvironment({
      tools: { lookup_order: (args) => ({ id: args.id, status: args.id === '7' ? 'late' : 'ok' }) },
    });
    const outcome = await run(
      {
        kind: 'graph',
        nodes: [
          { id: 'fetch', type: 'tool', tool: 'lookup_order', args: { id: '{{input.order}}' }, output_key: 'order' },
          { id: 'route', type: 'router', routes: [{ handle: 'late', when: 'order.status == "late"' }], default: 'fine' },
          { id: 'apologise', type: 'set', values: { reply: 'sorry' } },
          { id: 'confirm', type: 'set', values: { reply: 'on time' } },
        ],
        edges: [
          { from: 'fetch', to: 'route' },
          { from: 'route', to: 'apologise', handle: 'late' },
          { from: 'route', to: 'confirm', handle: 'fine' },
        ],
      },
      env,
      { input: { order: '7' } },
    );
    expect(outcome).toMatchObject({ status: 'completed', output: { order: { id: '7', status: 'late' }, reply: 'sorry' } });
    expect(events.find((e) => e.type === 'tool.called')?.data).toMatchObject({ name: 'lookup_order', arguments: { id: '7' } });
  });

  it('fails a tool node whose tool fails', async () => {
    const { env } = recordingEnvironment({
      tools: {
        boom: () => {
          throw new PublicError('backend down');
        },
      },
    });
    const outcome = await run({ kind: 'graph', nodes: [{ id: 't', type: 'tool', tool: 'boom' }] }, env);
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'tool_failed', message: 'backend down', nodeId: 't' } });
  });

  it('refuses router edges on handles the router cannot pick', () => {
    expect(() =>
      validateDefinition({
        kind: 'graph',
        nodes: [
          { id: 'r', type: 'router', routes: [{ handle: 'a', when: 'true' }] },
          { id: 'x', type: 'set', values: { v: 1 } },
        ],
        edges: [{ from: 'r', to: 'x', handle: 'b' }],
      }),
    ).toThrow(expect.objectContaining({ issues: [expect.objectContaining({ field: 'edges[0].handle', node: 'r' })] }));
  });
});

describe('node timeout', () => {
  it('aborts the node signal at the timeout and fails the node with node_timeout', async () => {
    let sawAbort = false;
    const { env } = recordingEnvironment({
      functions: {
        slow: ({ signal }) =>
          new Promise((_, reject) =>
            signal.addEventListener('abort', () => {
              sawAbort = true;
              reject(signal.reason);
            }),
          ),
      },
    });
    const outcome = await run({ kind: 'graph', nodes: [{ id: 'slow', type: 'function', function: 'slow', timeout_ms: 20 }] }, env);
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'node_timeout', nodeId: 'slow' } });
    expect(sawAbort).toBe(true);
  });

  it('cuts off a node that ignores its signal', async () => {
    const { env } = recordingEnvironment({ functions: { stubborn: () => new Promise(() => undefined) } });
    const outcome = await run(
      { kind: 'graph', nodes: [{ id: 'stubborn', type: 'function', function: 'stubborn', timeout_ms: 10 }] },
      { ...env, timeoutGraceMs: 10 },
    );
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'node_timeout' } });
  });
});

describe('run budget', () => {
  it('fails the run with run_budget_exceeded before a node would start past its token budget', async () => {
    const model = scriptedModel(['one two three', 'never asked']);
    const { env, events } = recordingEnvironment({ model });
    const outcome = await run(
      {
        kind: 'graph',
        budget: { maxTotalTokens: 5 },
        nodes: [
          { id: 'first', type: 'llm', model: 'm:x', prompt: 'hi' },
          { id: 'second', type: 'llm', model: 'm:x', prompt: 'again' },
        ],
        edges: [{ from: 'first', to: 'second' }],
      },
      env,
    );
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'run_budget_exceeded', nodeId: 'second' } });
    expect(model.requests).toHaveLength(1);
    expect(events.some((e) => e.type === 'node.started' && e.nodeId === 'second')).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'run.failed', data: { usage: { totalTokens: 6 } } });
  });
});

describe('structured agent answers', () => {
  const structured = {
    type: 'object',
    properties: { status: { enum: ['shipped', 'late'] }, days: { type: 'integer' } },
    required: ['status'],
  };

  it('parses and validates the final answer, without streaming', async () => {
    const model = scriptedModel(['```json\n{"status":"late","days":2}\n```']);
    const { env } = recordingEnvironment({ model, tools: { lookup_order: () => 1, calculator: () => 1 } });
    const outcome = await run(agent({ structured, stream: true }), env);
    expect(outcome).toMatchObject({ status: 'completed', output: { answer: { status: 'late', days: 2 } } });
    expect(model.requests[0].stream).toBe(false);
    expect(model.requests[0].system).toContain('"enum":["shipped","late"]');
  });

  it('fails the node with the validation message when the answer misses the schema', async () => {
    const { env } = recordingEnvironment({
      model: scriptedModel(['{"status":"lost"}']),
      tools: { lookup_order: () => 1, calculator: () => 1 },
    });
    const outcome = await run(agent({ structured }), env);
    expect(outcome).toMatchObject({
      status: 'failed',
      error: { code: 'validation_failed', nodeId: 'support', message: expect.stringContaining('answer.status') },
    });
  });
});

describe('router chosen by a model', () => {
  const def = {
    kind: 'graph',
    nodes: [
      {
        id: 'triage',
        type: 'router',
        model: 'm:x',
        prompt: 'Customer says: {{input}}',
        routes: [
          { handle: 'billing', description: 'invoices, refunds, charges' },
          { handle: 'shipping', description: 'deliveries and tracking' },
        ],
        default: 'human',
      },
      { id: 'billing', type: 'set', values: { team: 'billing' } },
      { id: 'shipping', type: 'set', values: { team: 'shipping' } },
      { id: 'human', type: 'set', values: { team: 'human' } },
    ],
    edges: [
      { from: 'triage', to: 'billing', handle: 'billing' },
      { from: 'triage', to: 'shipping', handle: 'shipping' },
      { from: 'triage', to: 'human', handle: 'human' },
    ],
  };

  it('follows the route the model picks from the described routes, and the default on "none"', async () => {
    const model = scriptedModel(['{"route":"shipping","reason":"tracking"}', '{"route":"none"}']);
    const first = recordingEnvironment({ model });
    expect(await run(def, first.env, { input: 'where is my parcel?' })).toMatchObject({
      status: 'completed',
      output: { team: 'shipping' },
    });
    expect(model.requests[0].system).toContain('- billing: invoices, refunds, charges');
    expect(model.requests[0].messages).toEqual([{ role: 'user', content: 'Customer says: where is my parcel?' }]);
    const second = recordingEnvironment({ model });
    expect(await run(def, second.env, { input: 'hello' })).toMatchObject({ status: 'completed', output: { team: 'human' } });
  });

  it('fails the node when the model names a route that does not exist', async () => {
    const { env } = recordingEnvironment({ model: scriptedModel(['{"route":"legal"}']) });
    expect(await run(def, env, { input: 'x' })).toMatchObject({ status: 'failed', error: { code: 'validation_failed', nodeId: 'triage' } });
  });

  it('refuses a model router whose routes lack descriptions, and an expression route without when', () => {
    expect(() =>
      validateDefinition({ ...def, nodes: [{ ...def.nodes[0], routes: [{ handle: 'billing' }] }, ...def.nodes.slice(1)] }),
    ).toThrow(
      expect.objectContaining({ issues: expect.arrayContaining([expect.objectContaining({ field: 'nodes[0].routes[0].description' })]) }),
    );
    expect(() => validateDefinition({ kind: 'graph', nodes: [{ id: 'r', type: 'router', routes: [{ handle: 'a' }] }] })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ field: 'nodes[0].routes[0].when' })] }),
    );
  });
});
