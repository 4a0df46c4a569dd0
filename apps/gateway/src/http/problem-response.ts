import { STATUS_CODES } from 'node:http';
import type { SpindleError } from '@spindle/contracts';
import type { FastifyReply } from 'fastify';
import { httpStatusByCode } from './http-status.map';

export const PROBLEM_JSON = 'application/problem+json';

/**
 * The RFC 9457 body every refusal carries; `code` is the stable part clients classify by.
 * `instance` is the request's URL, when there was a request to speak of.
 */
export function problemBody(error: SpindleError, instance: string | undefined, status = httpStatusByCode[error.code]) {
  return {
    type: `https://spindle.dev/problems/${error.code}`,
    title: error.code.replace(/_/g, ' '),
    status,
    code: error.code,
    detail: error.message,
    ...(instance !== undefined ? { instance } : {}),
    ...(error.issues ? { errors: error.issues } : {}),
  };
}

/** Answers through Fastify: for hooks and framework errors, which run outside Nest's exception filter. */
export function sendProblem(reply: FastifyReply, error: SpindleError): FastifyReply {
  const status = httpStatusByCode[error.code];
  return reply
    .status(status)
    .header('content-type', PROBLEM_JSON)
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
