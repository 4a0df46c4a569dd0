/** How long a command that failed waits before its next delivery: 1 s, 2 s, 4 s … at most 60 s. */
export function commandRetryDelayMs(deliveryCount: number): number {
  return Math.min(60_000, 1_000 * 2 ** Math.max(0, Math.min(deliveryCount - 1, 6)));
}
