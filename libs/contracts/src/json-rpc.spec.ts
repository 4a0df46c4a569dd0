import { JSON_RPC_ERROR, parseJsonRpcRequest } from './json-rpc';
import { A2A_ERROR } from './a2a';

describe('parseJsonRpcRequest', () => {
  it('takes a call with an id and a method, its params kept', () => {
    expect(parseJsonRpcRequest({ jsonrpc: '2.0', id: 7, method: 'tasks/get', params: { id: 't' } })).toEqual({
      ok: true,
      request: { id: 7, method: 'tasks/get', params: { id: 't' } },
    });
    expect(parseJsonRpcRequest({ jsonrpc: '2.0', id: 'a', method: 'm' })).toEqual({ ok: true, request: { id: 'a', method: 'm' } });
  });

  it.each([
    ['no jsonrpc', { id: 1, method: 'm' }, 'jsonrpc'],
    ['another version', { jsonrpc: '1.0', id: 1, method: 'm' }, 'jsonrpc'],
    ['a notification (no id)', { jsonrpc: '2.0', method: 'm' }, 'needs an id'],
    ['an answer (no method)', { jsonrpc: '2.0', id: 1, result: {} }, 'needs a method'],
    ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'm' }, 'id'],
    ['a method that is no string', { jsonrpc: '2.0', id: 1, method: 3 }, 'method'],
    ['params that are no object', { jsonrpc: '2.0', id: 1, method: 'm', params: 'x' }, 'params'],
    ['an array (a batch)', [{ jsonrpc: '2.0', id: 1, method: 'm' }], '(message)'],
    ['not an object', 'hello', '(message)'],
    ['null', null, '(message)'],
  ])('refuses %s, saying why', (_, body, why) => {
    const parsed = parseJsonRpcRequest(body);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.reason).toContain(why);
  });

  it("is where A2A's standard error codes come from", () => {
    expect(A2A_ERROR).toMatchObject(JSON_RPC_ERROR);
  });
});
