import { PublicError } from '@spindle/contracts';
import { validateDefinition } from '../definition/validate-definition';
import { executeRun } from '../interpreter/execute-run';
import { recordingEnvironment, scriptedModel } from '../testing/in-process-ports';

const run = (
  definition: unknown,
  env: ReturnType<typeof recordingEnvironment>['env'],
  state: Record<string, unknown> = { input: 'refund policy' },
) => executeRun({ definition: validateDefinition(definition), state, attempt: 1, worker: 'w' }, env);

describe('loop node', () => {
  it('re-queries with an updated query between two retrievals, each round with its own spans and iteration', async () => {
    const retrievals: string[] = [];
    const { env, events } = recordingEnvironment({
      tools: { retrieve: (args) => (retrievals.push(String(args.query)), { hits: retrievals.length === 1 ? 0 : 3 }) },
      model: scriptedModel(['refund policy for damaged items']),
    });
    const outcome = await run(
      {
        kind: 'graph',
        nodes: [
          { id: 'start', type: 'set', values: { query: '{{input}}' } },
          {
            id: 'search',
            type: 'loop',
            max_steps: 3,
            until: 'found.hits > 0',
            body: {
              nodes: [
                { id: 'retrieve', type: 'tool', tool: 'retrieve', args: { query: '{{query}}' }, output_key: 'found' },
                { id: 'enough', type: 'condition', expression: 'found.hits > 0' },
                { id: 'requery', type: 'llm', model: 'm:x', prompt: 'Rewrite the query "{{query}}"', output_key: 'query' },
              ],
              edges: [
                { from: 'retrieve', to: 'enough' },
                { from: 'enough', to: 'requery', handle: 'false' },
              ],
            },
          },
        ],
        edges: [{ from: 'start', to: 'search' }],
      },
      env,
    );
    expect(outcome).toMatchObject({ status: 'completed', output: { query: 'refund policy for damaged items', found: { hits: 3 } } });
    expect(retrievals).toEqual(['refund policy', 'refund policy for damaged items']);
    expect(events.filter((e) => e.type === 'loop.iteration').map((e) => e.data)).toEqual([
      { iteration: 1, maxSteps: 3 },
      { iteration: 2, maxSteps: 3 },
    ]);
    const retrieveStarts = events.filter((e) => e.type === 'node.started' && e.nodeId === 'retrieve');
    expect(retrieveStarts.map((e) => [e.path, e.iteration])).toEqual([
      ['root/search[1]/retrieve', 1],
      ['root/search[2]/retrieve', 2],
    ]);
    expect(new Set(retrieveStarts.map((e) => e.spanId)).size).toBe(2);
    const loopSpan = events.find((e) => e.type === 'node.started' && e.nodeId === 'search')?.spanId;
    expect(retrieveStarts.every((e) => e.parentSpanId === loopSpan)).toBe(true);
    const loopDone = events.find((e) => e.type === 'node.completed' && e.nodeId === 'search');
    expect(loopDone?.data).toMatchObject({ output: { found: { hits: 3 }, query: 'refund policy for damaged items' } });
  });

  it('stops after max_steps and fails with the body node error', async () => {
    const { env } = recordingEnvironment({
      tools: {
        flaky: () => {
          throw new PublicError('index offline');
        },
      },
    });
    const outcome = await run(
      { kind: 'graph', nodes: [{ id: 'l', type: 'loop', max_steps: 2, body: { nodes: [{ id: 't', type: 'tool', tool: 'flaky' }] } }] },
      env,
    );
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'tool_failed', nodeId: 'l', message: 't: index offline' } });
  });
});

describe('fork node', () => {
  const specialists = {
    kind: 'graph',
    nodes: [
      {
        id: 'specialists',
        type: 'fork',
        output_key: 'opinions',
        result_key: 'opinion',
        branches: {
          billing: {
            nodes: [{ id: 'billing_agent', type: 'llm', model: 'm:x', prompt: 'billing view on {{input}}', output_key: 'opinion' }],
          },
          shipping: {
            nodes: [{ id: 'shipping_agent', type: 'llm', model: 'm:x', prompt: 'shipping view on {{input}}', output_key: 'opinion' }],
          },
          returns: { nodes: [{ id: 'returns_agent', type: 'function', function: 'returns_view' }] },
        },
      },
      { id: 'summary', type: 'set', values: { summary: '{{opinions.billing}} / {{opinions.shipping}} / {{opinions.returns}}' } },
    ],
    edges: [{ from: 'specialists', to: 'summary' }],
  };

  it('runs branches on isolated copies of state and joins { branchId: result }', async () => {
    const model = scriptedModel(['refund in 5 days', 'label sent']);
    const { env, events } = recordingEnvironment({
      model,
      functions: { returns_view: ({ state }) => ({ opinion: `accept (${String(state.input)})`, scratch: 1 }) },
    });
    const outcome = await run(specialists, env);
    expect(outcome).toMatchObject({ status: 'completed', output: { opinions: { returns: 'accept (refund policy)' } } });
    const opinions = (outcome as unknown as { output: { opinions: Record<string, string> } }).output.opinions;
    expect(Object.keys(opinions).sort()).toEqual(['billing', 'returns', 'shipping']);
    expect(outcome).not.toMatchObject({ output: { scratch: 1 } });
    expect(
      events
        .filter((e) => e.type === 'branch.started')
        .map((e) => e.branchId)
        .sort(),
    ).toEqual(['billing', 'returns', 'shipping']);
    const billing = events.find((e) => e.type === 'node.started' && e.nodeId === 'billing_agent');
    expect(billing).toMatchObject({
      path: 'root/specialists[billing]/billing_agent',
      branchId: 'billing',
      data: { input: { prompt: 'billing view on refund policy' } },
    });
    expect(events.find((e) => e.type === 'model.completed' && e.nodeId === 'billing_agent')).toMatchObject({ branchId: 'billing' });
    const completed = events.filter((e) => e.type === 'branch.completed');
    // One per branch, each naming its fork, how it ended and how long it took.
    expect(completed.length).toBeGreaterThan(1);
    expect(completed.map((e) => e.type === 'branch.completed' && [e.data.forkId, e.data.status, typeof e.data.durationMs])).toEqual(
      completed.map(() => ['specialists', 'completed', 'number']),
    );
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });

  it('fails the fork when a branch fails, unless continue_on_error keeps the others', async () => {
    const failing = {
      returns_view: () => {
        throw new PublicError('returns desk closed');
      },
    };
    const strict = recordingEnvironment({ model: scriptedModel(['a', 'b']), functions: failing });
    expect(await run(specialists, strict.env)).toMatchObject({
      status: 'failed',
      error: { code: 'function_failed', nodeId: 'specialists', message: expect.stringContaining('returns desk closed') },
    });

    const lenient = recordingEnvironment({ model: scriptedModel(['a', 'b']), functions: failing });
    const def = {
      ...specialists,
      nodes: [
        { ...specialists.nodes[0], continue_on_error: true },
        { id: 'summary', type: 'set', values: { done: true } },
      ],
    };
    const outcome = await run(def, lenient.env);
    expect(outcome).toMatchObject({ status: 'completed', output: { opinions: { returns: { error: { code: 'function_failed' } } } } });
  });

  it('refuses duplicate node ids across branches and unreachable nodes inside a branch', () => {
    expect(() =>
      validateDefinition({
        kind: 'graph',
        nodes: [
          {
            id: 'f',
            type: 'fork',
            branches: {
              a: { nodes: [{ id: 'x', type: 'set', values: { v: 1 } }] },
              b: {
                nodes: [
                  { id: 'x', type: 'set', values: { v: 2 } },
                  { id: 'y', type: 'set', values: { v: 3 } },
                ],
              },
            },
          },
        ],
      }),
    ).toThrow(
      expect.objectContaining({
        issues: expect.arrayContaining([expect.objectContaining({ field: 'nodes[0].branches.b.nodes[0].id', node: 'x' })]),
      }),
    );
  });
});

describe('fork sibling cancellation', () => {
  it('stops the other branches at once when one fails, and fails with the first failure', async () => {
    let slowSawAbort = false;
    const { env, events } = recordingEnvironment({
      functions: {
        broken: () => {
          throw new PublicError('inventory service down');
        },
        slow: ({ signal }) =>
          new Promise((_, reject) =>
            signal.addEventListener('abort', () => {
              slowSawAbort = true;
              reject(signal.reason);
            }),
          ),
      },
    });
    const outcome = await run(
      {
        kind: 'graph',
        nodes: [
          {
            id: 'both',
            type: 'fork',
            branches: {
              fast: { nodes: [{ id: 'fails', type: 'function', function: 'broken' }] },
              long: { nodes: [{ id: 'waits', type: 'function', function: 'slow' }] },
            },
          },
        ],
      },
      env,
    );
    expect(outcome).toMatchObject({
      status: 'failed',
      error: { code: 'function_failed', nodeId: 'both', message: expect.stringContaining('inventory service down') },
    });
    expect(slowSawAbort).toBe(true);
    expect(events.find((e) => e.type === 'node.failed' && e.nodeId === 'waits')?.data).toMatchObject({
      error: { code: 'canceled', message: 'stopped: branch fast failed' },
    });
    expect(events.at(-1)?.type).toBe('run.failed');
  });
});
