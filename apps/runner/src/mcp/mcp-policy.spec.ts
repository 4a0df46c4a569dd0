import { mcpPolicyFrom } from './mcp-policy';

describe('SPINDLE_MCP_ALLOW policy', () => {
  const policy = mcpPolicyFrom('node, https://mcp.internal/tools/');

  it('allows listed commands and URLs under a listed prefix', () => {
    expect(policy.refusal({ name: 's', command: 'node', args: ['server.js'] })).toBeUndefined();
    expect(policy.refusal({ name: 's', url: 'https://mcp.internal/tools/search?key=1' })).toBeUndefined();
  });

  it('refuses other commands, other paths and look-alike hosts', () => {
    expect(policy.refusal({ name: 's', command: 'bash' })).toMatch(/command "bash" is not allowed/);
    expect(policy.refusal({ name: 's', url: 'https://mcp.internal/admin' })).toMatch(/not allowed/);
    expect(policy.refusal({ name: 's', url: 'https://mcp.internal.evil.example/tools/' })).toMatch(/not allowed/);
  });

  it('allows nothing when unset and everything with *', () => {
    expect(mcpPolicyFrom(undefined).refusal({ name: 's', command: 'node' })).toMatch(/not allowed/);
    expect(mcpPolicyFrom('*').refusal({ name: 's', url: 'http://127.0.0.1:9/mcp' })).toBeUndefined();
  });
});
