import { answerBodyFor } from './answer-body';

const call = { callId: 'c1', name: 'refund', arguments: { amount: 5 }, argumentsHash: 'a'.repeat(64) };
const approval = { kind: 'approval' as const, form: null, call };
const input = (kind: 'boolean' | 'text' | 'json' | 'plan_review') => ({ kind: 'input' as const, form: { kind }, call: null });

describe('answerBodyFor', () => {
  it('binds an approval to the exact call the request shows', () => {
    expect(answerBodyFor(approval, { reject: true, message: 'too much', as: 'ada' })).toEqual({
      decision: 'reject',
      callId: 'c1',
      name: 'refund',
      argumentsHash: call.argumentsHash,
      message: 'too much',
      respondedBy: 'ada',
    });
  });

  it('answers an input with what its form takes', () => {
    expect(answerBodyFor(input('boolean'), { approve: true })).toEqual({ approved: true });
    expect(answerBodyFor(input('plan_review'), { reject: true, text: 'shorter' })).toEqual({ approved: false, text: 'shorter' });
    expect(answerBodyFor(input('json'), { data: { n: 1 } })).toEqual({ data: { n: 1 } });
  });

  it('sends --json as the whole body', () => {
    expect(answerBodyFor(input('text'), { json: { text: 'hi' } })).toEqual({ text: 'hi' });
  });

  it.each([
    [approval, {}, /--approve or --reject/],
    [approval, { approve: true, reject: true }, /not both/],
    [input('text'), {}, /needs an answer/],
    [input('text'), { message: 'm' }, /--message is for approvals/],
    [input('text'), { json: { text: 'a' }, text: 'b' }, /--json is the whole answer/],
  ])('refuses a command line that cannot be an answer (%#)', (request, flags, message) => {
    expect(() => answerBodyFor(request, flags)).toThrow(
      expect.objectContaining({ code: 'usage', message: expect.stringMatching(message) }),
    );
  });
});
