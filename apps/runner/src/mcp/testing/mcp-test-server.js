// A tiny MCP server for the runner's tests, built with the SDK's own server classes so the client
// is tested against a real peer. Run as a script it serves stdio; `createTestServer()` gives a
// fresh server for an in-process HTTP transport.
'use strict';
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { z } = require('zod');

function createTestServer() {
  const server = new McpServer({ name: 'spindle-test', version: '1.0.0' });
  server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  server.registerTool('fail', { description: 'Always fails' }, () => ({
    content: [{ type: 'text', text: 'the backend is down' }],
    isError: true,
  }));
  // Dots are valid MCP tool names but not provider ones: the client must rename it.
  server.registerTool('text.upper', { description: 'Upper-cases text', inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: 'text', text: text.toUpperCase() }],
  }));
  // Lets a test see which environment the runner handed a stdio server.
  server.registerTool('env', { description: 'Reads an environment variable', inputSchema: { name: z.string() } }, ({ name }) => ({
    content: [{ type: 'text', text: process.env[name] ?? '(unset)' }],
  }));
  return server;
}

module.exports = { createTestServer };

if (require.main === module) {
  process.stderr.write('mcp-test-server: ready\n');
  createTestServer()
    .connect(new StdioServerTransport())
    .catch((error) => {
      process.stderr.write(`mcp-test-server: ${error}\n`);
      process.exit(1);
    });
}
