import type { Actor, RunEvent } from '@spindle/contracts';
import { toolArgumentsHash } from '@spindle/engine';
import { decideAnswer } from './answer-decision';

let seq = 0;
const ev = (type: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  ({ runId: 'r1', seq: ++seq, at: '2026-11-30T00:00:00.000Z', spanId: 'root', path: 'root', type, data, ...extra }) as unknown as RunEvent;

function waitingOn(request: RunEvent): RunEvent[] {
  seq = 0;
  return [
    ev('run.queued', { workflow: { name: 'w', version: 1 }, input: null, state: {}, definition: {} }),
    ev('run.started', { attempt: 1, worker: 'w1' }),
    ev('node.started', { nodeType: 'human', input: {} }, { nodeId: 'ask', spanId: 's1', parentSpanId: 'root', path: 'root/ask' }),
    { ...request, seq: ++seq },
    ev('run.awaiting', { reason: 'input', requestIds: ['q1'] }),
  ];
}

const node = { nodeId: 'ask', spanId: 's1', parentSpanId: 'root', path: 'root/ask' };
const jsonRequest = (mode: 'single' | 'multiple') =>
  ev(
    'input.requested',
    {
      requestId: 'q1',
      prompt: 'order?',
      mode,
      form: { kind: 'json', schema: { type: 'object', required: ['qty'], properties: { qty: { type: 'integer', minimum: 1 } } } },
    },
    node,
  );
const args = { order: 7, amount: 30 };
const approvalRequest = ev(
  'approval.requested',
  {
    requestId: 'q1',
    prompt: 'refund?',
    mode: 'single',
    call: { callId: 'c1', name: 'refund', arguments: args, argumentsHash: toolArgumentsHash(args) },
  },
  node,
);

const ADA: Actor = { kind: 'user', id: 'ada-sub', name: 'Ada' };
const BOT: Actor = { kind: 'key', id: 'botkey0000000000', name: 'support bot' };

describe('deciding an answer from the log', () => {
  it('records a valid answer bound to the request span, and refuses a wrong shape naming the field', () => {
    const events = waitingOn(jsonRequest('single'));
    expect(decideAnswer(events, 'q1', { data: { qty: 2 }, respondedBy: 'ada' }, BOT)).toEqual({
      type: 'input.answered',
      nodeId: 'ask',
      spanId: 's1',
      parentSpanId: 'root',
      path: 'root/ask',
      data: { requestId: 'q1', answer: { data: { qty: 2 } }, answeredBy: { ...BOT, onBehalfOf: 'ada' } },
    });
    expect(() => decideAnswer(events, 'q1', { data: { qty: 0 } }, ADA)).toThrow(
      expect.objectContaining({ code: 'validation_failed', issues: [expect.objectContaining({ field: 'data.qty' })] }),
    );
    expect(() => decideAnswer(events, 'q1', { approved: true }, ADA)).toThrow(
      expect.objectContaining({ code: 'validation_failed', issues: [expect.objectContaining({ field: 'data' })] }),
    );
    expect(() => decideAnswer(events, 'nope', { data: { qty: 1 } }, ADA)).toThrow(expect.objectContaining({ code: 'request_not_found' }));
  });

  it('single mode: the same answer again changes nothing, a different one is a conflict', () => {
    const events = waitingOn(jsonRequest('single'));
    const answered = [...events, ev('input.answered', { requestId: 'q1', answer: { data: { qty: 2 } }, answeredBy: ADA }, node)];
    expect(decideAnswer(answered, 'q1', { data: { qty: 2 } }, ADA)).toBeUndefined();
    expect(() => decideAnswer(answered, 'q1', { data: { qty: 3 } }, ADA)).toThrow(
      expect.objectContaining({ code: 'request_already_answered' }),
    );
  });

  it('multiple mode: any second answer is refused as closed', () => {
    const events = waitingOn(jsonRequest('multiple'));
    const answered = [...events, ev('input.answered', { requestId: 'q1', answer: { data: { qty: 2 } }, answeredBy: ADA }, node)];
    expect(() => decideAnswer(answered, 'q1', { data: { qty: 2 } }, ADA)).toThrow(expect.objectContaining({ code: 'request_closed' }));
  });

  it('refuses an answer while the run is not waiting, and after it ended', () => {
    const events = waitingOn(jsonRequest('single')).slice(0, -1);
    expect(() => decideAnswer(events, 'q1', { data: { qty: 2 } }, ADA)).toThrow(expect.objectContaining({ code: 'run_not_waiting' }));
    const ended = [...waitingOn(jsonRequest('single')), ev('run.canceled', { reason: 'x' })];
    expect(() => decideAnswer(ended, 'q1', { data: { qty: 2 } }, ADA)).toThrow(expect.objectContaining({ code: 'request_closed' }));
  });

  it('binds an approval to the exact call: a different call id, name or argument hash is a conflict', () => {
    const events = waitingOn(approvalRequest);
    const exact = { decision: 'approve' as const, callId: 'c1', name: 'refund', argumentsHash: toolArgumentsHash(args) };
    expect(decideAnswer(events, 'q1', exact, ADA)).toMatchObject({
      type: 'approval.resolved',
      data: { decision: 'approved', callId: 'c1', argumentsHash: toolArgumentsHash(args) },
    });
    expect(() => decideAnswer(events, 'q1', { ...exact, argumentsHash: toolArgumentsHash({ order: 7, amount: 3000 }) }, ADA)).toThrow(
      expect.objectContaining({ code: 'approval_binding_mismatch' }),
    );
    expect(() => decideAnswer(events, 'q1', { ...exact, callId: 'c2' }, ADA)).toThrow(
      expect.objectContaining({ code: 'approval_binding_mismatch' }),
    );
    expect(() => decideAnswer(events, 'q1', { decision: 'approve' }, ADA)).toThrow(expect.objectContaining({ code: 'validation_failed' }));
  });

  it("refuses an answer past the request's expiresAt even before the time-out is recorded", () => {
    const expiring = ev(
      'approval.requested',
      {
        requestId: 'q1',
        prompt: 'refund?',
        mode: 'single',
        call: { callId: 'c1', name: 'refund', arguments: args, argumentsHash: toolArgumentsHash(args) },
        expiresAt: '2026-11-30T00:05:00.000Z',
      },
      node,
    );
    const exact = { decision: 'approve' as const, callId: 'c1', name: 'refund', argumentsHash: toolArgumentsHash(args) };
    expect(decideAnswer(waitingOn(expiring), 'q1', exact, ADA, undefined, new Date('2026-11-30T00:04:59.999Z'))).toMatchObject({
      type: 'approval.resolved',
    });
    expect(() => decideAnswer(waitingOn(expiring), 'q1', exact, ADA, undefined, new Date('2026-11-30T00:05:00.000Z'))).toThrow(
      expect.objectContaining({ code: 'request_closed' }),
    );
  });

  it('refuses a late approval of a request that expired, even one that names the exact call', () => {
    const exact = { decision: 'approve' as const, callId: 'c1', name: 'refund', argumentsHash: toolArgumentsHash(args) };
    const expired = [
      ...waitingOn(approvalRequest),
      ev(
        'approval.resolved',
        {
          requestId: 'q1',
          decision: 'rejected',
          callId: 'c1',
          name: 'refund',
          argumentsHash: toolArgumentsHash(args),
          timedOut: true,
          answeredBy: { kind: 'system', id: 'timeout', name: 'time-out' },
        },
        node,
      ),
    ];
    expect(() => decideAnswer(expired, 'q1', exact, ADA)).toThrow(expect.objectContaining({ code: 'request_closed' }));
    expect(() => decideAnswer(expired, 'q1', { ...exact, decision: 'reject' }, ADA)).toThrow(
      expect.objectContaining({ code: 'request_closed' }),
    );
  });
});
