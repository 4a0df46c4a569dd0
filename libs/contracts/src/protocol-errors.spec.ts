import { A2A_ERROR } from './a2a';
import { ErrorCodes, retryableByCode, type ErrorCode } from './errors';
import { JSON_RPC_ERROR } from './json-rpc';
import { protocolErrorOf, protocolMessageOf } from './protocol-errors';

const codes = Object.keys(ErrorCodes) as ErrorCode[];
const a2aCodes = new Set<number>(Object.values(A2A_ERROR));
const jsonRpcCodes = new Set<number>(Object.values(JSON_RPC_ERROR));

describe('the protocol error table', () => {
  it.each(codes)('says %s in every protocol, with codes each protocol has', (code) => {
    const shape = protocolErrorOf(code);
    expect(a2aCodes.has(shape.a2a)).toBe(true);
    expect(shape.mcpCall === null || jsonRpcCodes.has(shape.mcpCall)).toBe(true);
  });

  it("makes a request's own fault the params' fault, in A2A and in an MCP call", () => {
    for (const code of ['validation_failed', 'invalid_definition', 'workflow_not_found', 'request_not_found'] as const) {
      expect(protocolErrorOf(code)).toMatchObject({ a2a: A2A_ERROR.invalidParams, mcpCall: JSON_RPC_ERROR.invalidParams, public: true });
    }
  });

  it('answers a limit or an outage as a tool error the model reads, and never as the params’ fault', () => {
    for (const code of ['rate_limited', 'quota_exceeded', 'too_many_streams', 'service_unavailable', 'bus_unavailable'] as const) {
      expect(protocolErrorOf(code)).toMatchObject({ a2a: A2A_ERROR.internal, mcpCall: null, public: true });
    }
  });

  it('says a retryable refusal nowhere as the caller’s fault (trying again can help)', () => {
    const callersFault = codes.filter((c) => retryableByCode[c] && protocolErrorOf(c).mcpCall === JSON_RPC_ERROR.invalidParams);
    expect(callersFault).toEqual([]);
  });

  it('keeps the message of an internal error to itself, and says every other', () => {
    expect(protocolErrorOf('internal')).toEqual({ a2a: A2A_ERROR.internal, mcpCall: JSON_RPC_ERROR.internal, public: false });
    expect(protocolMessageOf('internal', 'pool exhausted at db.ts:12')).toBe('internal error');
    expect(codes.filter((c) => !protocolErrorOf(c).public)).toEqual(['internal']);
    expect(protocolMessageOf('thread_busy', 'thread t is busy')).toBe('thread t is busy');
  });
});
