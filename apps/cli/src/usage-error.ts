/** The command line is wrong (a bad option value, unreadable JSON): exit code 2, no request sent. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly code = 'usage';
}
