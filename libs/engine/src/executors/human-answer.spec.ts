import { checkHumanAnswer } from './human-answer';

describe('checkHumanAnswer', () => {
  it('keeps a comment with any decision', () => {
    expect(checkHumanAnswer({ kind: 'boolean' }, { approved: false, comment: 'not today' })).toEqual({
      ok: true,
      answer: { approved: false, comment: 'not today' },
    });
    expect(checkHumanAnswer({ kind: 'plan_review' }, { approved: true, comment: 'ship it' })).toEqual({
      ok: true,
      answer: { approved: true, comment: 'ship it' },
    });
    expect(checkHumanAnswer({ kind: 'plan_review' }, { approved: false, text: 'shorter', comment: 'too long' })).toEqual({
      ok: true,
      answer: { approved: false, text: 'shorter', comment: 'too long' },
    });
  });

  it('keeps the text of an approved plan as its comment instead of dropping it', () => {
    expect(checkHumanAnswer({ kind: 'plan_review' }, { approved: true, text: 'looks good' })).toEqual({
      ok: true,
      answer: { approved: true, comment: 'looks good' },
    });
    expect(checkHumanAnswer({ kind: 'plan_review' }, { approved: true })).toEqual({ ok: true, answer: { approved: true } });
  });

  it('names the field at fault', () => {
    expect(checkHumanAnswer({ kind: 'text' }, { text: 'a', comment: '' })).toEqual({
      ok: false,
      issues: [{ field: 'comment', message: expect.stringMatching(/non-empty/) }],
    });
    expect(checkHumanAnswer({ kind: 'plan_review' }, { approved: false })).toEqual({
      ok: false,
      issues: [{ field: 'text', message: 'a rejected plan needs the revision in text' }],
    });
  });
});
