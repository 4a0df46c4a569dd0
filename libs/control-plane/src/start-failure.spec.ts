import { ErrorCodes, retryableByCode, SpindleError, type ErrorCode } from '@spindle/contracts';
import { failedForGood } from './start-failure';

describe('failedForGood', () => {
  it.each(Object.keys(ErrorCodes) as ErrorCode[])('decides a start that failed with %s by its code', (code) => {
    const failure = failedForGood(new SpindleError(code, 'no'));
    expect(failure).toEqual(retryableByCode[code] ? undefined : { code, message: 'no' });
  });

  it('retries what nothing classified, and the start rate and the outages in particular', () => {
    expect(failedForGood(new Error('socket hang up'))).toBeUndefined();
    for (const code of ['rate_limited', 'service_unavailable', 'bus_unavailable', 'database_unavailable', 'storage_full'] as const)
      expect(failedForGood(new SpindleError(code, 'later'))).toBeUndefined();
  });
});
