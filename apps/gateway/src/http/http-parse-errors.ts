import type { Socket } from 'node:net';
import { SpindleError } from '@spindle/contracts';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { rawProblemResponse, sendProblem } from './problem-response';
import { unreadBodyDropped, type UnreadBodyLimits } from './unread-body-drain';

/**
 * Fastify's `frameworkErrors`: a request its router could not take (a path that is not valid
 * percent-encoding, a path parameter past `maxParamLength`). Without it Fastify answers in its
 * own JSON shape. Fastify's onSend hooks do not run for these answers, so the unread body is
 * dropped here before answering.
 */
export function frameworkErrorHandler(maxParamLength: number, unreadBody: UnreadBodyLimits) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    void unreadBodyDropped(request.raw, unreadBody).then(() => sendProblem(reply, fromFramework(error, maxParamLength)));
  };
}

function fromFramework(error: FastifyError, maxParamLength: number): SpindleError {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return new SpindleError('invalid_request', 'the URL path is not valid percent-encoding');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new SpindleError('uri_too_long', `a path segment is longer than ${maxParamLength} characters`);
    default:
      return new SpindleError('invalid_request', `the request could not be routed (${error.code})`);
  }
}

/** How long a refused connection may linger while the client reads the answer. */
const LINGER_MS = 5_000;

/**
 * Node's `clientError`: the HTTP parser gave up before there was a request (a malformed
 * Content-Length, headers past `maxHeaderSize`, a request that did not arrive in time). The
 * answer is written as raw HTTP/1.1 and the connection closed, since the rest of the bytes
 * cannot be trusted to start another request.
 */
export function clientErrorHandler(maxHeaderBytes: number) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // A response already under way on this connection cannot be followed by another.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    socket.end(responseFor(error, maxHeaderBytes, isHead(error)));
    // Read and drop what the client is still sending, so closing does not reset the connection
    // under the answer, and give up on a client that never closes its side.
    socket.resume();
    socket.setTimeout(LINGER_MS, () => socket.destroy());
  };
}

/** A HEAD request's answer has headers only: a body after them would break the client's parser. */
function isHead(error: Error & { rawPacket?: unknown }): boolean {
  return Buffer.isBuffer(error.rawPacket) && error.rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
}

function responseFor(error: Error & { code?: string }, maxHeaderBytes: number, head: boolean): string {
  const answer = (problem: SpindleError, status?: number) => rawProblemResponse(problem, status, { head });
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return answer(new SpindleError('headers_too_large', `the request line and headers are larger than ${maxHeaderBytes} bytes`));
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      // HTTP's own status for it (there is no Spindle code that means "too slow"), still problem+json.
      return answer(new SpindleError('invalid_request', 'the request did not arrive in time'), 408);
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return answer(new SpindleError('invalid_request', `Content-Length is not valid: ${reasonOf(error)}`));
    default:
      return answer(new SpindleError('invalid_request', `malformed HTTP request: ${reasonOf(error)}`));
  }
}

/** Node's parser explains itself in `reason` ("Invalid character in Content-Length"). */
const reasonOf = (error: Error & { code?: string; reason?: string }): string => error.reason ?? error.code ?? error.message;
