import { PublicError, SpindleError } from '@spindle/contracts';
import { validateDefinition } from '../definition/validate-definition';
import { executeRun } from '../interpreter/execute-run';
import type { RunEnvironment } from '../interpreter/run-environment';
import type { ToolPort } from '../ports';
import { recordingEnvironment, scriptedModel, toolCalls } from '../testing/in-process-ports';

const math = { name: 'math', command: 'node', args: ['math-server.js'] };
const agent = (extra: Record<string, unknown> = {}) => ({
  kind: 'graph',
  nodes: [
    { id: 'solver', type: 'agent', model: 'compatible:m', tools: ['calculator'], mcp_servers: [math], output_key: 'answer', ...extra },
  ],
});
const run = (definition: unknown, env: RunEnvironment) =>
  executeRun({ definition: validateDefinition(definition), state: { input: 'What is 2+3?' }, attempt: 1, worker: 'w' }, env);

/** An in-process ToolPort whose MCP server "math" has `add` and `fail`, beside the plugin tools of `env`. */
function withMcp(env: RunEnvironment, discover: NonNullable<ToolPort['discover']>) {
  const discovered: Array<{ servers: unknown; nodeId: string }> = [];
  const tools: ToolPort = {
    specs: (names) => env.tools.specs(names),
    discover: async (servers, ctx) => {
      discovered.push({ servers, nodeId: ctx.nodeId });
      return discover(servers, ctx);
    },
    call: async (name, args, ctx) => {
      if (name === 'math__add') return Number(args.a) + Number(args.b);
      if (name === 'math__fail') throw new PublicError('the backend is down');
      return env.tools.call(name, args, ctx);
    },
  };
  return { env: { ...env, tools }, discovered };
}
const mathTools: NonNullable<ToolPort['discover']> = async (servers) =>
  servers.flatMap((s) =>
    ['add', 'fail'].map((tool) => ({ name: `${s.name}__${tool}`, description: tool, inputSchema: { type: 'object' } })),
  );

describe('agent with MCP servers', () => {
  it('offers discovered tools as <server>__<tool> beside its tools, routes calls, and traces them as tool spans', async () => {
    const model = scriptedModel([
      toolCalls({ name: 'math__add', arguments: { a: 2, b: 3 } }, { name: 'math__fail', arguments: {} }),
      'It is 5.',
    ]);
    const recording = recordingEnvironment({ model, tools: { calculator: () => 1 } });
    const { env, discovered } = withMcp(recording.env, mathTools);
    const outcome = await run(agent(), env);

    expect(outcome).toMatchObject({ status: 'completed', output: { answer: 'It is 5.' } });
    expect(discovered).toEqual([{ servers: [math], nodeId: 'solver' }]);
    expect(model.requests[0].tools?.map((t) => t.name)).toEqual(['calculator', 'math__add', 'math__fail']);
    const node = recording.events.find((e) => e.type === 'node.started');
    const spans = recording.events.filter((e) => e.type.startsWith('tool.'));
    expect(spans.map((e) => [e.type, e.parentSpanId, e.data])).toEqual([
      ['tool.called', node?.spanId, expect.objectContaining({ name: 'math__add', arguments: { a: 2, b: 3 } })],
      ['tool.returned', node?.spanId, expect.objectContaining({ name: 'math__add', result: 5 })],
      ['tool.called', node?.spanId, expect.objectContaining({ name: 'math__fail' })],
      [
        'tool.returned',
        node?.spanId,
        expect.objectContaining({ name: 'math__fail', error: { code: 'tool_failed', message: 'the backend is down' } }),
      ],
    ]);
    // The failed MCP call is an observation the model saw, with the server's text.
    expect(model.requests[1].messages.at(-1)).toMatchObject({
      role: 'tool',
      toolName: 'math__fail',
      isError: true,
      content: expect.stringContaining('the backend is down'),
    });
  });

  it('fails the node with the port error when a server cannot be reached, before calling the model', async () => {
    const model = scriptedModel(['never asked']);
    const recording = recordingEnvironment({ model, tools: { calculator: () => 1 } });
    const { env } = withMcp(recording.env, async () => {
      throw new SpindleError('tool_failed', 'MCP server "math" (command node): could not connect and list tools: spawn node ENOENT');
    });
    const outcome = await run(agent(), env);
    expect(outcome).toMatchObject({
      status: 'failed',
      error: { code: 'tool_failed', nodeId: 'solver', message: expect.stringContaining('MCP server "math"') },
    });
    expect(model.requests).toHaveLength(0);
  });

  it('fails the node when a discovered name clashes with a listed tool, or the runner has no MCP support', async () => {
    const clash = withMcp(recordingEnvironment({ model: scriptedModel([]), tools: { math__add: () => 1 } }).env, mathTools);
    await expect(run(agent({ tools: ['math__add'] }), clash.env)).resolves.toMatchObject({
      status: 'failed',
      error: { code: 'validation_failed', message: expect.stringContaining('"math__add"') },
    });
    const plain = recordingEnvironment({ model: scriptedModel([]), tools: { calculator: () => 1 } });
    await expect(run(agent(), plain.env)).resolves.toMatchObject({
      status: 'failed',
      error: { code: 'tool_not_found', message: expect.stringContaining('no MCP support') },
    });
  });

  it('refuses an MCP server with both or neither of command and url, naming the field', () => {
    for (const server of [{ name: 'x', command: 'node', url: 'https://mcp.example/' }, { name: 'x' }]) {
      expect(() => validateDefinition(agent({ mcp_servers: [server] }))).toThrow(
        expect.objectContaining({
          issues: [
            expect.objectContaining({
              node: 'solver',
              field: 'nodes[0].mcp_servers[0].command',
              message: expect.stringContaining('exactly one of command'),
            }),
          ],
        }),
      );
    }
    expect(() => validateDefinition(agent({ mcp_servers: [math, math] }))).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ message: expect.stringContaining('unique') })] }),
    );
  });
});
