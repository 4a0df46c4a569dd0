import { answerFailedCreation, answerHeldKey } from './held-key';

describe('answerHeldKey', () => {
  it('refuses a different request whether or not its run exists', () => {
    expect(answerHeldKey({ sameRequest: false, runQueued: true })).toBe('refuse');
    expect(answerHeldKey({ sameRequest: false, runQueued: false })).toBe('refuse');
  });

  it('replays the same request when its run is in the log', () => {
    expect(answerHeldKey({ sameRequest: true, runQueued: true })).toBe('replay');
  });

  it('completes the same request when the key names a run that was never queued', () => {
    expect(answerHeldKey({ sameRequest: true, runQueued: false })).toBe('complete');
  });
});

describe('answerFailedCreation', () => {
  it('gives the key back only when the log says the run is not there', () => {
    expect(answerFailedCreation({ runQueued: false, lostAppend: false })).toBe('release');
    expect(answerFailedCreation({ runQueued: false, lostAppend: true })).toBe('release');
  });

  it('keeps the key when the log cannot be read', () => {
    expect(answerFailedCreation({ runQueued: undefined, lostAppend: false })).toBe('keep');
    expect(answerFailedCreation({ runQueued: undefined, lostAppend: true })).toBe('keep');
  });

  it('answers a creator that lost the append of a run now in the log as a replay', () => {
    expect(answerFailedCreation({ runQueued: true, lostAppend: true })).toBe('replay');
  });

  it('keeps the key and fails when the run is in the log but a later step failed', () => {
    expect(answerFailedCreation({ runQueued: true, lostAppend: false })).toBe('keep');
  });
});
