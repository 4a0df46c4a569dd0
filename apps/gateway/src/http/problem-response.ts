import { STATUS_CODES } from 'node:http';
import type { Problem, SpindleError } from '@spindle/contracts';
import { redactAccessToken } from '@spindle/identity';
import type { FastifyReply } from 'fastify';
import { httpStatusByCode } from './http-status.map';

export const PROBLEM_JSON = 'application/problem+json';

/**
 * The RFC 9457 body every refusal carries; `code` is the stable part clients classify by.
 * `instance` is the request's URL, when there was a request to speak of.
 */
export function problemBody(error: SpindleError, instance: string | undefined, status = httpStatusByCode[error.code]): Problem {
  return {
    type: `https://spindle.dev/problems/${error.code}`,
    title: error.code.replace(/_/g, ' '),
    status,
    code: error.code,
    detail: error.message,
    // A stream token in the URL is a credential: never repeated, not even to whoever sent it.
    ...(instance !== undefined ? { instance: redactAccessToken(instance) } : {}),
    ...(error.issues ? { errors: error.issues } : {}),
  };
}

/**
 * Headers a refusal carries besides its body: the challenge of a `401` (RFC 6750; `invalid_token`
 * once credentials were sent) and `Retry-After` when waiting helps.
 */
export function problemHeaders(error: SpindleError, credentialsSent = false): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': PROBLEM_JSON };
  if (error.code === 'unauthenticated') {
    headers['www-authenticate'] = credentialsSent ? 'Bearer realm="spindle", error="invalid_token"' : 'Bearer realm="spindle"';
  }
  if (error.retryAfterSec !== undefined) headers['retry-after'] = String(Math.max(1, Math.ceil(error.retryAfterSec)));
  return headers;
}

/** Answers through Fastify: for hooks and framework errors, which run outside Nest's exception filter. */
export function sendProblem(reply: FastifyReply, error: SpindleError): FastifyReply {
  const status = httpStatusByCode[error.code];
  return reply
    .status(status)
    .headers(problemHeaders(error, reply.request.headers.authorization !== undefined))
    .send(problemBody(error, reply.request.url, status));
}

/**
 * A whole HTTP/1.1 response as text, for errors Node's HTTP parser raises before there is a
 * request object to answer through. The connection is closed after it: after a parse error the
 * rest of the byte stream cannot be trusted to start a new request.
 */
export function rawProblemResponse(error: SpindleError, status = httpStatusByCode[error.code], opts: { head?: boolean } = {}): string {
  const body = JSON.stringify(problemBody(error, undefined, status));
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    `content-type: ${PROBLEM_JSON}`,
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
    '',
    // A HEAD request gets the headers of the answer, never its body.
    opts.head ? '' : body,
  ].join('\r\n');
}
