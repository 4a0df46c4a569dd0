import { answerOfInterrupt } from './ag-ui-answers';
import type { OpenRequest } from './mcp-tools';

const call = { callId: 'c1', name: 'refund', arguments: { amount: 40 }, argumentsHash: 'a'.repeat(64) };
const approval: OpenRequest = { requestId: 'r2', kind: 'approval', prompt: 'Refund?', call };
const input = (form: Extract<OpenRequest, { kind: 'input' }>['form']): OpenRequest => ({
  requestId: 'r1',
  kind: 'input',
  prompt: 'Go?',
  form,
});

describe('answerOfInterrupt: an AG-UI resume payload as the answer its interrupt takes', () => {
  it('approves or declines a tool call with true/false, bound to the exact call the interrupt showed', () => {
    expect(answerOfInterrupt(approval, true)).toEqual({ decision: 'approve', callId: 'c1', name: 'refund', argumentsHash: 'a'.repeat(64) });
    expect(answerOfInterrupt(approval, false)).toEqual({ decision: 'reject', callId: 'c1', name: 'refund', argumentsHash: 'a'.repeat(64) });
  });

  it('passes an object through as the answer for either kind', () => {
    const decision = { decision: 'reject', callId: 'c1', name: 'refund', argumentsHash: 'a'.repeat(64), message: 'too much' };
    expect(answerOfInterrupt(approval, decision)).toEqual(decision);
    expect(answerOfInterrupt(input({ kind: 'json' }), { data: { seats: 2 } })).toEqual({ data: { seats: 2 } });
  });

  it('answers a form with approved for a boolean and text for a string', () => {
    expect(answerOfInterrupt(input({ kind: 'boolean' }), true)).toEqual({ approved: true });
    expect(answerOfInterrupt(input({ kind: 'plan_review' }), false)).toEqual({ approved: false });
    expect(answerOfInterrupt(input({ kind: 'text' }), 'two')).toEqual({ text: 'two' });
  });

  it('keeps the generic shape for a request it does not know, for the answer service to refuse by name', () => {
    expect(answerOfInterrupt(undefined, true)).toEqual({ approved: true });
    expect(answerOfInterrupt(undefined, undefined)).toEqual({});
  });
});
