import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { PublicError } from '@spindle/contracts';
import { createEgressGuard, parseEgressAllowList, type EgressGuard, type Resolve } from '@spindle/egress';
import type { ToolPort } from '@spindle/engine';
import { connectMcpServer, type McpConnection } from './mcp-connection';
import { allowAllMcpServers, mcpPolicyFrom } from './mcp-policy';
import type { McpServerConfig } from './mcp-server-config';
import { McpToolSource } from './mcp-tool-source';
import { RunToolPort } from './run-tool-port';
import { createTestServer } from './testing/mcp-test-server.js';
import { recordingVoice } from '../plugins/user-code-voice.fixture';

const stdioServer: McpServerConfig = { name: 'math', command: process.execPath, args: [join(__dirname, 'testing', 'mcp-test-server.js')] };
const ctx = (nodeId: string) => ({ ...recordingVoice(), runId: 'run-1', nodeId, callId: 'call-1', signal: new AbortController().signal });

const guards: EgressGuard[] = [];
afterAll(() => Promise.all(guards.map((g) => g.close())));

/** The runner's egress guard as `SPINDLE_EGRESS_ALLOWED_HOSTS=<allow>` makes it, with a fake DNS where given. */
function egressFetch(allow: string, resolve?: Resolve): typeof fetch {
  const guard = createEgressGuard(parseEgressAllowList(allow, 'SPINDLE_EGRESS_ALLOWED_HOSTS'), { resolve });
  guards.push(guard);
  return guard.fetch;
}

/** Records every connection it opens, so a test can see reuse and closing. */
function recordingSource(policy = allowAllMcpServers, fetch = egressFetch('')) {
  const opened: McpConnection[] = [];
  const skipped: string[] = [];
  const source = new McpToolSource({
    policy,
    fetch,
    onSkippedTool: (server, tool) => skipped.push(`${server}/${tool}`),
    connect: async (server, signal, guarded) => {
      const connection = await connectMcpServer(server, signal, guarded);
      opened.push(connection);
      return connection;
    },
  });
  return { source, opened, skipped };
}

describe('MCP tools over stdio', () => {
  it('discovers prefixed tools, routes calls, reports isError as a public failure, and closes the server', async () => {
    const { source, opened } = recordingSource();
    const plugins: ToolPort = { specs: () => [], call: async (name) => `plugin ${name}` };
    const tools = new RunToolPort(plugins, source);
    process.env.SPINDLE_TEST_SECRET = 'must-not-leak';
    try {
      const specs = await tools.discover([stdioServer], ctx('agent_a'));
      expect(specs.map((s) => s.name)).toEqual(['math__add', 'math__fail', 'math__text_upper', 'math__env']);
      expect(specs[0]).toMatchObject({
        description: 'Adds two numbers',
        inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
      });

      await expect(tools.call('math__add', { a: 2, b: 3 }, ctx('agent_a'))).resolves.toBe('5');
      await expect(tools.call('math__text_upper', { text: 'hi' }, ctx('agent_a'))).resolves.toBe('HI');
      const failure = tools.call('math__fail', {}, ctx('agent_a'));
      await expect(failure).rejects.toBeInstanceOf(PublicError);
      await expect(failure).rejects.toThrow('the backend is down');
      // Invalid arguments come back from the server as an isError result the model can read.
      await expect(tools.call('math__add', { a: 'two' }, ctx('agent_a'))).rejects.toThrow(/Invalid arguments for tool add/);

      // Runner secrets stay out of a spawned server's environment; PATH is passed.
      await expect(tools.call('math__env', { name: 'SPINDLE_TEST_SECRET' }, ctx('agent_a'))).resolves.toBe('(unset)');
      await expect(tools.call('math__env', { name: 'PATH' }, ctx('agent_a'))).resolves.not.toBe('(unset)');

      // Names are routed per node: another node (or a plugin name) goes to the plugin port.
      await expect(tools.call('math__add', { a: 1, b: 1 }, ctx('agent_b'))).resolves.toBe('plugin math__add');
      await expect(tools.call('lookup', {}, ctx('agent_a'))).resolves.toBe('plugin lookup');

      // A second agent naming the same server reuses the run's connection.
      await tools.discover([stdioServer], ctx('agent_b'));
      await expect(tools.call('math__add', { a: 1, b: 1 }, ctx('agent_b'))).resolves.toBe('2');
      expect(opened).toHaveLength(1);
    } finally {
      delete process.env.SPINDLE_TEST_SECRET;
      await tools.close();
    }
    expect(opened[0].open).toBe(false);
    await expect(tools.discover([stdioServer], ctx('agent_c'))).rejects.toMatchObject({ code: 'tool_failed' });
  });

  it('fails discovery with tool_failed naming the server when it cannot start', async () => {
    const { source } = recordingSource();
    try {
      const missing = { name: 'gone', command: join(__dirname, 'testing', 'no-such-server') };
      await expect(source.discover([missing], ctx('agent_a'))).rejects.toMatchObject({
        code: 'tool_failed',
        message: expect.stringContaining('MCP server "gone"'),
      });
      const crashing = {
        name: 'crash',
        command: process.execPath,
        args: ['-e', 'process.stderr.write("boom: no config"); process.exit(3)'],
      };
      await expect(source.discover([crashing], ctx('agent_a'))).rejects.toMatchObject({
        code: 'tool_failed',
        message: expect.stringContaining('boom: no config'),
      });
    } finally {
      await source.close();
    }
  });

  it('refuses a server the policy does not allow, before spawning anything', async () => {
    const { source, opened } = recordingSource(mcpPolicyFrom('https://mcp.internal/'));
    await expect(source.discover([stdioServer], ctx('agent_a'))).rejects.toMatchObject({
      code: 'tool_failed',
      message: expect.stringContaining('is not allowed on this runner (SPINDLE_MCP_ALLOW)'),
    });
    expect(opened).toHaveLength(0);
    await source.close();
  });
});

describe('MCP tools over streamable HTTP', () => {
  let http: Server;
  let url: string;

  beforeAll(async () => {
    // Stateless mode: a fresh server and transport per request, as the SDK documents for it.
    http = createServer((req, res) => {
      const server = createTestServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close().then(() => server.close()));
      server
        .connect(transport)
        .then(() => transport.handleRequest(req, res))
        .catch(() => res.headersSent || res.writeHead(500).end());
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  });

  afterAll(async () => {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });

  it('discovers and calls tools of a server at a URL the policy allows, at an address the operator allowed', async () => {
    const { source, opened } = recordingSource(
      mcpPolicyFrom(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`),
      egressFetch('127.0.0.1'),
    );
    try {
      const specs = await source.discover([{ name: 'remote', url }], ctx('agent_a'));
      expect(specs.map((s) => s.name)).toContain('remote__add');
      await expect(source.call('remote__add', { a: 20, b: 22 }, ctx('agent_a'))).resolves.toBe('42');
      await expect(source.call('remote__fail', {}, ctx('agent_a'))).rejects.toThrow('the backend is down');
    } finally {
      await source.close();
    }
    expect(opened[0].open).toBe(false);
  });

  it('refuses, at connect and with egress_refused, an allowed URL that is or resolves to loopback', async () => {
    const port = (http.address() as AddressInfo).port;
    // `mcp.test` passes every check made before connecting; its DNS answers loopback.
    const rebinding: Resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    const policy = mcpPolicyFrom(`http://mcp.test:${port}/mcp, http://localhost:${port}/mcp, http://127.0.0.1:${port}/mcp`);
    for (const [server, fetch] of [
      [{ name: 'rebound', url: `http://mcp.test:${port}/mcp` }, egressFetch('', rebinding)],
      [{ name: 'local', url: `http://localhost:${port}/mcp` }, egressFetch('')],
      [{ name: 'literal', url: `http://127.0.0.1:${port}/mcp` }, egressFetch('')],
    ] as const) {
      const { source, opened } = recordingSource(policy, fetch);
      await expect(source.discover([server], ctx('agent_a'))).rejects.toMatchObject({
        code: 'egress_refused',
        message: expect.stringMatching(new RegExp(`MCP server "${server.name}".* internal address`)),
      });
      expect(opened).toHaveLength(0);
      await source.close();
    }
    // Named by the operator as an internal host it may reach, the same server is used.
    const { source } = recordingSource(policy, egressFetch('mcp.test', rebinding));
    try {
      const specs = await source.discover([{ name: 'rebound', url: `http://mcp.test:${port}/mcp` }], ctx('agent_a'));
      expect(specs.map((s) => s.name)).toContain('rebound__add');
    } finally {
      await source.close();
    }
  });
});
