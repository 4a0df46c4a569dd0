import { answerBodyFor, answerHint, answerKindOf } from './answer-body';

const call = { callId: 'c1', name: 'refund', arguments: { amount: 5 }, argumentsHash: 'a'.repeat(64) };
const approval = { kind: 'approval' as const, form: null, call };
const input = (kind: 'boolean' | 'text' | 'json' | 'plan_review') => ({ kind: 'input' as const, form: { kind }, call: null });

describe('answerBodyFor', () => {
  it('binds an approval to the exact call the request shows, its comment as the note to the model', () => {
    const bound = { callId: 'c1', name: 'refund', argumentsHash: call.argumentsHash };
    expect(answerBodyFor(approval, { reject: true, comment: 'too much', as: 'ada' })).toEqual({
      decision: 'reject',
      ...bound,
      message: 'too much',
      respondedBy: 'ada',
    });
    expect(answerBodyFor(approval, { approve: true, message: 'fine' })).toEqual({ decision: 'approve', ...bound, message: 'fine' });
  });

  it('answers a yes/no question with a decision and any comment', () => {
    expect(answerBodyFor(input('boolean'), { approve: true })).toEqual({ approved: true });
    expect(answerBodyFor(input('boolean'), { reject: true, message: 'not now' })).toEqual({ approved: false, comment: 'not now' });
    expect(answerBodyFor({ kind: 'input', form: null, call: null }, { approve: true })).toEqual({ approved: true });
  });

  it('keeps a comment with a plan review either way: --text on approval is the comment, on rejection the revision', () => {
    expect(answerBodyFor(input('plan_review'), { approve: true, text: 'looks good' })).toEqual({ approved: true, comment: 'looks good' });
    expect(answerBodyFor(input('plan_review'), { approve: true, comment: 'ok' })).toEqual({ approved: true, comment: 'ok' });
    expect(answerBodyFor(input('plan_review'), { approve: true })).toEqual({ approved: true });
    expect(answerBodyFor(input('plan_review'), { reject: true, text: 'shorter', comment: 'too long' })).toEqual({
      approved: false,
      text: 'shorter',
      comment: 'too long',
    });
  });

  it('answers text and json forms with their answer and any comment', () => {
    expect(answerBodyFor(input('text'), { text: 'blue', comment: 'guess' })).toEqual({ text: 'blue', comment: 'guess' });
    expect(answerBodyFor(input('json'), { data: { n: 1 } })).toEqual({ data: { n: 1 } });
  });

  it('sends --json as the whole body', () => {
    expect(answerBodyFor(input('text'), { json: { text: 'hi' } })).toEqual({ text: 'hi' });
  });

  it.each([
    [approval, {}, /it needs a decision; an approval takes --approve\|--reject/],
    [approval, { approve: true, reject: true }, /not both/],
    [approval, { approve: true, text: 'x' }, /--text cannot answer it/],
    [input('boolean'), { data: 1 }, /--data cannot answer it; a boolean request takes --approve\|--reject/],
    [input('plan_review'), { text: 'shorter' }, /needs a decision; a plan_review request takes --approve .* \| --reject --text <revision>/],
    [input('plan_review'), { reject: true }, /needs the revision/],
    [input('plan_review'), { approve: true, text: 'a', comment: 'b' }, /one comment/],
    [input('text'), {}, /needs the answer; a text request takes --text <answer>/],
    [input('text'), { approve: true, text: 'a' }, /--approve cannot answer it/],
    [input('json'), { text: 'a' }, /--text cannot answer it/],
    [input('text'), { text: 'a', comment: 'b', message: 'c' }, /same as --comment/],
    [input('text'), { json: { text: 'a' }, text: 'b' }, /--json is the whole answer/],
  ])('refuses a command line that cannot be the answer, naming the flags its kind takes (%#)', (request, flags, message) => {
    expect(() => answerBodyFor(request, flags)).toThrow(
      expect.objectContaining({ code: 'usage', message: expect.stringMatching(message) }),
    );
  });

  it('every hint names flags its kind takes', () => {
    expect(answerHint(answerKindOf(approval))).toBe('--approve|--reject [--comment <note to the model>]');
    expect(answerHint(answerKindOf(input('plan_review')))).toBe('--approve [--comment <text>] | --reject --text <revision>');
  });
});
