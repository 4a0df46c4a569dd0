import { jsonRpcMethodScopes, scopeOfJsonRpcMethod } from './protocol-scopes';

describe('scopeOfJsonRpcMethod: the scope each protocol method needs', () => {
  it('lets a reader read tasks and tools, as it reads /v1/runs/{id}', () => {
    expect(scopeOfJsonRpcMethod('a2a', 'tasks/get')).toBe('runs:read');
    expect(scopeOfJsonRpcMethod('a2a', 'tasks/resubscribe')).toBe('runs:read');
    expect(scopeOfJsonRpcMethod('mcp', 'tools/list')).toBe('runs:read');
    expect(scopeOfJsonRpcMethod('mcp', 'initialize')).toBe('runs:read');
  });

  it('needs runs:write to start, answer or cancel a run', () => {
    expect(scopeOfJsonRpcMethod('a2a', 'message/send')).toBe('runs:write');
    expect(scopeOfJsonRpcMethod('a2a', 'message/stream')).toBe('runs:write');
    expect(scopeOfJsonRpcMethod('a2a', 'tasks/cancel')).toBe('runs:write');
    expect(scopeOfJsonRpcMethod('mcp', 'tools/call')).toBe('runs:write');
    expect(scopeOfJsonRpcMethod('mcp', undefined)).toBe('runs:write');
  });

  it('needs runs:write for a method it does not list, even one named like an inherited property', () => {
    expect(scopeOfJsonRpcMethod('a2a', 'tasks/list')).toBe('runs:write');
    expect(scopeOfJsonRpcMethod('mcp', 'constructor')).toBe('runs:write');
    expect(scopeOfJsonRpcMethod('mcp', '__proto__')).toBe('runs:write');
  });

  it('lists every method with its scope, for the docs', () => {
    expect(jsonRpcMethodScopes('a2a')).toContainEqual(['tasks/get', 'runs:read']);
    expect(jsonRpcMethodScopes('mcp')).toContainEqual(['tools/call', 'runs:write']);
  });
});
