import { isSpindleError, type RunnerCapabilities } from '@spindle/contracts';
import { validateDefinition } from '@spindle/engine';
import { capabilityRefusal } from './capability-check';

const runner = (id: string, over: Partial<RunnerCapabilities> = {}): RunnerCapabilities => ({
  runnerId: id,
  startedAt: '2026-01-01T00:00:00.000Z',
  announcedAt: '2026-01-01T00:00:10.000Z',
  runTimeoutCeilingMs: 3_600_000,
  plugins: [{ name: 'calc', version: '1.0.0', path: 'calc.js' }],
  functions: [{ name: 'noop', pure: true, plugin: 'built-in' }],
  tools: [{ name: 'add', inputSchema: { type: 'object' }, plugin: 'calc.js' }],
  ...over,
});

/** The nodes in a chain, each reachable from the first. */
const graph = (nodes: Array<{ id: string; [field: string]: unknown }>, extra: Record<string, unknown> = {}) =>
  validateDefinition({ kind: 'graph', nodes, edges: nodes.slice(1).map((n, i) => ({ from: nodes[i].id, to: n.id })), ...extra });

function refusalOf(def: ReturnType<typeof validateDefinition>, runners: RunnerCapabilities[]) {
  const error = capabilityRefusal(def, runners);
  if (!isSpindleError(error)) throw new Error('expected a refusal');
  return { code: error.code, fields: error.issues?.map((i) => i.field), message: error.message };
}

describe('capabilityRefusal', () => {
  it('passes a definition whose functions and tools some runner has', () => {
    const def = graph([
      { id: 'a', type: 'function', function: 'noop' },
      { id: 'b', type: 'agent', model: 'openai:gpt-4o', tools: ['add'] },
    ]);
    expect(capabilityRefusal(def, [runner('r1')])).toBeUndefined();
  });

  it('checks nothing when no runner has announced itself', () => {
    expect(capabilityRefusal(graph([{ id: 'a', type: 'function', function: 'nowhere' }]), [])).toBeUndefined();
  });

  it('names each unknown function by its field, inside loop bodies and fork branches too, with what is registered', () => {
    const def = graph([
      { id: 'a', type: 'function', function: 'noop' },
      { id: 'b', type: 'function', function: 'missing' },
      { id: 'l', type: 'loop', max_steps: 2, body: { nodes: [{ id: 'in_loop', type: 'function', function: 'gone' }] } },
      { id: 'f', type: 'fork', branches: { left: { nodes: [{ id: 'in_fork', type: 'function', function: 'lost' }] } } },
    ]);
    const refused = refusalOf(def, [runner('r1')]);
    expect(refused.code).toBe('function_not_found');
    expect(refused.fields).toEqual(['nodes[1].function', 'nodes[2].body.nodes[0].function', 'nodes[3].branches.left.nodes[0].function']);
    expect(refused.message).toContain('registered: noop');
  });

  it('finds a function on any runner: a name only the second runner has passes', () => {
    const def = graph([{ id: 'a', type: 'function', function: 'lookup' }]);
    const second = runner('r2', { functions: [{ name: 'lookup', pure: false, plugin: 'orders.js' }] });
    expect(capabilityRefusal(def, [runner('r1'), second])).toBeUndefined();
  });

  it("refuses a tool no runner has, in agent tools, tool nodes and pattern agents, but not MCP servers' or handoff tools", () => {
    const def = graph([
      {
        id: 'a',
        type: 'agent',
        model: 'openai:gpt-4o',
        tools: ['add', 'docs__search', 'nope'],
        mcp_servers: [{ name: 'docs', url: 'http://127.0.0.1:9/mcp' }],
      },
      { id: 't', type: 'tool', tool: 'absent' },
    ]);
    expect(refusalOf(def, [runner('r1')])).toMatchObject({ code: 'tool_not_found', fields: ['nodes[0].tools[2]', 'nodes[1].tool'] });
    const pattern = validateDefinition({
      kind: 'group_chat',
      agents: [{ name: 'w', model: 'openai:gpt-4o', tools: ['add', 'unknown_tool'] }],
      manager: { name: 'm', model: 'openai:gpt-4o', tools: ['other'] },
    });
    expect(refusalOf(pattern, [runner('r1')])).toMatchObject({
      code: 'tool_not_found',
      fields: ['agents[0].tools[1]', 'manager.tools[0]'],
    });
    const handoff = validateDefinition({
      kind: 'handoff',
      agents: [
        { name: 'a', model: 'openai:gpt-4o' },
        { name: 'b', model: 'openai:gpt-4o', tools: ['add'] },
      ],
    });
    expect(capabilityRefusal(handoff, [runner('r1')])).toBeUndefined();
  });

  it('refuses a runTimeoutMs above the lowest ceiling of the live runners', () => {
    const runners = [runner('r1'), runner('r2', { runTimeoutCeilingMs: 60_000 })];
    expect(capabilityRefusal(graph([{ id: 'a', type: 'function', function: 'noop' }], { runTimeoutMs: 60_000 }), runners)).toBeUndefined();
    const refused = refusalOf(graph([{ id: 'a', type: 'function', function: 'noop' }], { runTimeoutMs: 60_001 }), runners);
    expect(refused).toMatchObject({ code: 'invalid_definition', fields: ['runTimeoutMs'] });
    expect(refused.message).toContain('60000 ms');
  });
});
