/**
 * An error whose message the run's log, trace and caller may see. Anything else user code throws
 * is redacted to its type and a correlation id (its text goes only to the runner's own log). The
 * runner recognises it by its name, so a plugin's own class of that name works the same.
 */
export class PublicError extends Error {
  override readonly name = 'PublicError';

  constructor(
    message: string,
    /** Details shown with the message; JSON only. */
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}
