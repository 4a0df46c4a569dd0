import { isJsonRpcEndpoint } from './json-rpc-body';

describe('isJsonRpcEndpoint: where a body that is not JSON is a JSON-RPC parse error', () => {
  it('is the MCP endpoint and each A2A agent, with or without a query', () => {
    expect(isJsonRpcEndpoint('/v1/mcp')).toBe(true);
    expect(isJsonRpcEndpoint('/v1/mcp?x=1')).toBe(true);
    expect(isJsonRpcEndpoint('/v1/a2a/support')).toBe(true);
    expect(isJsonRpcEndpoint('/v1/a2a/support?x=1')).toBe(true);
  });

  it('is no other route, not even one that starts alike', () => {
    for (const url of ['/v1/runs', '/v1/mcpx', '/v1/a2a/support/.well-known/agent-card.json', '/v1/ag-ui/support', '/x/v1/mcp'])
      expect(isJsonRpcEndpoint(url)).toBe(false);
  });
});
