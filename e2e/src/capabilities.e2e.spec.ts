import { startStack, stopProcess, type ServiceProcess, type Stack } from '@spindle/testing';

interface Problem {
  status: number;
  code: string;
  detail: string;
  errors?: Array<{ field: string; node?: string; message: string }>;
}
interface Listed {
  name: string;
  plugin: { name: string; version?: string; path: string };
  inputSchema?: Record<string, unknown>;
  runners: Array<{ id: string; announcedAt: string }>;
}

const CALCULATOR = 'examples/plugins/calculator.js';
const ORDERS = 'examples/plugins/order-lookup.js';

/**
 * Issue 29: runners announce what they can run; the gateway lists it and refuses, at save, a
 * workflow that names a function or tool no live runner has, or a run timeout above their ceiling.
 */
describe('a registry of what the runners can run', () => {
  let stack: Stack;
  let calculatorRunner: ServiceProcess;
  let ordersRunner: ServiceProcess;

  const put = (name: string, definition: unknown, query = '') =>
    stack.api(`/v1/workflows/${name}${query}`, { method: 'PUT', body: JSON.stringify(definition) });
  async function refusal(res: Response): Promise<Problem> {
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    return (await res.json()) as Problem;
  }
  const listed = async (what: 'functions' | 'tools') => ((await (await stack.api(`/v1/${what}`)).json()) as Record<string, Listed[]>)[what];
  const runnersOf = (list: Listed[], name: string) => list.filter((e) => e.name === name).flatMap((e) => e.runners.map((r) => r.id));

  beforeAll(async () => {
    stack = await startStack({ runnerEnv: { SPINDLE_PLUGINS: CALCULATOR } });
    calculatorRunner = stack.processes.find((p) => p.name === 'runner')!;
    // Another runner with other plugins and a lower ceiling: each runner says what it has.
    ordersRunner = await stack.startService('runner', { SPINDLE_PLUGINS: ORDERS, RUN_TIMEOUT_CEILING_MS: '120000' });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('lists every function and tool with its plugin, schemas and the runners that have it', async () => {
    const functions = await listed('functions');
    expect(runnersOf(functions, 'noop').sort()).toEqual([calculatorRunner.id, ordersRunner.id].sort());
    expect(functions.find((f) => f.name === 'noop')?.plugin).toEqual({ name: 'built-in', path: 'built-in' });
    expect(runnersOf(functions, 'calculate')).toEqual([calculatorRunner.id]);
    const tools = await listed('tools');
    expect(runnersOf(tools, 'calculator')).toEqual([calculatorRunner.id]);
    expect(runnersOf(tools, 'lookup_order')).toEqual([ordersRunner.id]);
    const lookup = tools.find((t) => t.name === 'lookup_order')!;
    // The plugin says who it is (definePlugin's name and version).
    expect(lookup.plugin).toMatchObject({ name: 'order-lookup', version: expect.stringMatching(/^\d+\.\d+\.\d+$/), path: ORDERS });
    expect(lookup.inputSchema).toMatchObject({ type: 'object' });
  });

  it('refuses a function no runner has, naming the field and what is registered', async () => {
    const res = await put('unknown-function', {
      kind: 'graph',
      nodes: [
        { id: 'count', type: 'function', function: 'word_count' },
        { id: 'missing', type: 'function', function: 'no_such_function' },
      ],
      edges: [{ from: 'count', to: 'missing' }],
    });
    expect(res.status).toBe(400);
    const problem = await refusal(res);
    expect(problem.code).toBe('function_not_found');
    expect(problem.errors).toEqual([
      { field: 'nodes[1].function', node: 'missing', message: expect.stringMatching(/"no_such_function" .*registered: .*calculate/) },
    ]);
  });

  it('refuses a tool no runner has, and takes one that only one of the runners has', async () => {
    const agent = (tools: string[]) => ({
      kind: 'graph',
      nodes: [{ id: 'agent', type: 'agent', model: 'compatible:any', tools }],
    });
    const res = await put('unknown-tool', agent(['calculator', 'no_such_tool']));
    expect(res.status).toBe(400);
    expect(await refusal(res)).toMatchObject({ code: 'tool_not_found', errors: [{ field: 'nodes[0].tools[1]' }] });
    const saved = await put('known-tools', agent(['calculator', 'lookup_order']));
    expect(saved.status).toBe(201);
    expect(saved.headers.get('spindle-capability-check')).toBe('passed');
  });

  it('refuses a runTimeoutMs above the lowest ceiling of the live runners', async () => {
    const timed = (runTimeoutMs: number) => ({ kind: 'graph', runTimeoutMs, nodes: [{ id: 'n', type: 'function', function: 'noop' }] });
    const res = await put('too-long', timed(120_001));
    expect(res.status).toBe(400);
    expect(await refusal(res)).toMatchObject({ code: 'invalid_definition', errors: [{ field: 'runTimeoutMs' }] });
    expect((await put('long-enough', timed(120_000))).status).toBe(201);
  });

  it('saves without the check when asked (deploying before the runner), and checks a rollback like a save', async () => {
    const early = { kind: 'graph', nodes: [{ id: 'n', type: 'function', function: 'ships_next_week' }] };
    const res = await put('deployed-early', early, '?check=definition-only');
    expect(res.status).toBe(201);
    expect(res.headers.get('spindle-capability-check')).toBe('skipped-on-request');
    expect((await put('deployed-early', { kind: 'graph', nodes: [{ id: 'n', type: 'function', function: 'noop' }] })).status).toBe(201);
    const rollback = (query = '') =>
      stack.api(`/v1/workflows/deployed-early/rollback${query}`, { method: 'POST', body: JSON.stringify({ version: 1 }) });
    const refused = await rollback();
    expect(refused.status).toBe(400);
    expect(await refusal(refused)).toMatchObject({ code: 'function_not_found', errors: [{ field: 'nodes[0].function' }] });
    expect((await rollback('?check=definition-only')).status).toBe(201);
    const unknownCheck = await put('deployed-early', early, '?check=none');
    expect(unknownCheck.status).toBe(400);
  });

  it("drops a stopped runner's entry at once, and checks nothing once no runner is announced", async () => {
    await stopProcess(ordersRunner.child);
    expect(runnersOf(await listed('tools'), 'lookup_order')).toEqual([]);
    expect(runnersOf(await listed('functions'), 'noop')).toEqual([calculatorRunner.id]);
    const orders = { kind: 'graph', nodes: [{ id: 'agent', type: 'agent', model: 'compatible:any', tools: ['lookup_order'] }] };
    expect((await put('orders-gone', orders)).status).toBe(400);
    await stopProcess(calculatorRunner.child);
    expect(await listed('functions')).toEqual([]);
    const saved = await put('orders-gone', orders);
    expect(saved.status).toBe(201);
    expect(saved.headers.get('spindle-capability-check')).toBe('skipped-no-runners');
  });
});
