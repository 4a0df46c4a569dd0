import { commandRetryDelayMs } from './command-retry';

describe('commandRetryDelayMs', () => {
  it('doubles from one second and stops growing at a minute', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50].map(commandRetryDelayMs)).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000,
    ]);
  });
});
