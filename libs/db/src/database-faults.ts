import { isSpindleError, SpindleError } from '@spindle/contracts';

/** How long a client should wait before asking again while Postgres does not answer. */
export const DATABASE_RETRY_AFTER_SEC = 5;

/**
 * SQLSTATEs of a server that is going away or not there yet: class 08 (connection exception),
 * 57P01–57P03 (admin shutdown, crash shutdown, cannot connect now: a failover, a restart,
 * recovery) and 53300 (too many connections).
 */
const OUTAGE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;

/** What Node's sockets say when the server is unreachable or the connection broke. */
const SOCKET_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** `pg`'s and pg-pool's own words for a connection that is gone or could not be had in time. */
const CLIENT_MESSAGE =
  /^(Connection terminated( unexpectedly| due to connection timeout)?|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable|Query read timeout)$/;

/**
 * Postgres did not answer (down, restarting, failing over, unreachable, out of connections): the
 * operation may succeed later and says nothing about the data. Anything else (a constraint, a
 * data exception, a bug) is not an outage.
 */
export function isDatabaseFault(e: unknown, depth = 0): boolean {
  if (depth > 3 || typeof e !== 'object' || e === null) return false;
  if (isSpindleError(e)) return e.code === 'database_unavailable';
  const err = e as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  if (typeof err.code === 'string' && (OUTAGE_SQLSTATE.test(err.code) || SOCKET_ERRNO.has(err.code))) return true;
  if (typeof err.message === 'string' && CLIENT_MESSAGE.test(err.message)) return true;
  // A connect to a name with several addresses fails with an AggregateError of one error each.
  if (Array.isArray(err.errors) && err.errors.length > 0 && err.errors.every((x) => isDatabaseFault(x, depth + 1))) return true;
  return isDatabaseFault(err.cause, depth + 1);
}

/** The error as callers classify it: a database fault becomes `database_unavailable`, anything else stays. */
export function asDatabaseFault(e: unknown): unknown {
  if (isSpindleError(e) || !isDatabaseFault(e)) return e;
  return new SpindleError('database_unavailable', `PostgreSQL did not answer: ${(e as Error).message}`, {
    cause: e,
    retryAfterSec: DATABASE_RETRY_AFTER_SEC,
  });
}
