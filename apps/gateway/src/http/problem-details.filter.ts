import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { isSpindleError, SpindleError } from '@spindle/contracts';
import { asDatabaseFault, isDatabaseFault } from '@spindle/db';
import { redactAccessToken } from '@spindle/identity';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { httpStatusByCode } from './http-status.map';
import { problemBody, problemHeaders } from './problem-response';

/** Every error leaves as `application/problem+json` with a stable `code`. */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost) {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const error = this.toSpindleError(exception);
    const status = httpStatusByCode[error.code];
    if (status >= 500) this.logger.error({ err: exception, url: redactAccessToken(request.url) }, 'request failed');
    if (reply.sent || reply.raw.headersSent) return;
    void reply
      .status(status)
      .headers(problemHeaders(error, request.headers.authorization !== undefined))
      .send(problemBody(error, request.url, status));
  }

  private toSpindleError(e: unknown): SpindleError {
    if (isSpindleError(e)) return e;
    // Postgres not answering is an outage (503, Retry-After), not the gateway's bug.
    if (isDatabaseFault(e)) return asDatabaseFault(e) as SpindleError;
    // Nest hands Fastify's own request errors (body too large, media type, a body shorter than its
    // Content-Length) over as HTTP exceptions. Fields are checked by our own code, so what is left
    // at 4xx is the HTTP request itself being malformed.
    if (e instanceof HttpException) {
      const status = e.getStatus();
      if (status === 404) return new SpindleError('not_found', 'no such route');
      if (status === 413) return new SpindleError('payload_too_large', `the body is larger than this server accepts (${e.message})`);
      if (status === 415) return new SpindleError('unsupported_media_type', 'send the body as application/json');
      if (status < 500) return new SpindleError('invalid_request', `malformed HTTP request: ${e.message}`);
    }
    return new SpindleError('internal', 'internal error');
  }
}
