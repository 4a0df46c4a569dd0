import { PublicError, SpindleError } from '@spindle/contracts';
import { callWithPolicy } from './call-policy';

const timeoutError = (ms: number) => new SpindleError('node_timeout', `timed out after ${ms} ms`);

describe('callWithPolicy onRetry', () => {
  it('tells of every failed try another follows, with its back-off, before the wait, and not of the last', async () => {
    const told: Array<{ attempt: number; message: string; retryInMs: number }> = [];
    const error = await callWithPolicy({
      signal: new AbortController().signal,
      retry: { attempts: 3, backoffMs: 5 },
      timeoutError,
      onRetry: ({ attempt, error, retryInMs }) => void told.push({ attempt, message: (error as Error).message, retryInMs }),
      run: (_signal, attempt) => {
        throw new Error(`try ${attempt}`);
      },
    }).catch((e: unknown) => e);
    expect((error as Error).message).toBe('try 3');
    // The wait doubles from backoffMs.
    expect(told).toEqual([
      { attempt: 1, message: 'try 1', retryInMs: 5 },
      { attempt: 2, message: 'try 2', retryInMs: 10 },
    ]);
  });

  it('hands over a plugin’s own PublicError as the engine’s, and a timed-out try as the timeout error', async () => {
    const told: unknown[] = [];
    class OwnPublicError extends Error {
      override name = 'PublicError';
    }
    const result = await callWithPolicy({
      signal: new AbortController().signal,
      timeoutMs: 10,
      retry: { attempts: 3, backoffMs: 1 },
      timeoutError,
      onRetry: ({ error }) => void told.push(error),
      run: (_signal, attempt) => {
        if (attempt === 1) throw new OwnPublicError('busy');
        if (attempt === 2) return new Promise<never>(() => undefined);
        return 'ok';
      },
    });
    expect(result).toBe('ok');
    expect(told[0]).toBeInstanceOf(PublicError);
    expect(told[1]).toMatchObject({ code: 'node_timeout', message: 'timed out after 10 ms' });
  });

  it('is not told of a try that is not retried (not retryable, or retryOn says no)', async () => {
    const onRetry = jest.fn();
    await expect(
      callWithPolicy({
        signal: new AbortController().signal,
        retry: { attempts: 3, backoffMs: 1, retryOn: () => false },
        timeoutError,
        onRetry,
        run: () => {
          throw new Error('no');
        },
      }),
    ).rejects.toThrow('no');
    await expect(
      callWithPolicy({
        signal: new AbortController().signal,
        retry: { attempts: 3, backoffMs: 1 },
        timeoutError,
        onRetry,
        run: () => {
          throw new SpindleError('validation_failed', 'bad');
        },
      }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    expect(onRetry).not.toHaveBeenCalled();
  });
});
