import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { isSpindleError, SpindleError } from '@spindle/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { httpStatusByCode } from './http-status.map';

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
    if (status >= 500) this.logger.error({ err: exception, url: request.url }, 'request failed');
    if (reply.sent || reply.raw.headersSent) return;
    void reply
      .status(status)
      .header('content-type', 'application/problem+json')
      .send({
        type: `https://spindle.dev/problems/${error.code}`,
        title: error.code.replace(/_/g, ' '),
        status,
        code: error.code,
        detail: error.message,
        instance: request.url,
        ...(error.issues ? { errors: error.issues } : {}),
      });
  }

  private toSpindleError(e: unknown): SpindleError {
    if (isSpindleError(e)) return e;
    // Nest hands Fastify's own request errors (body too large, media type) over as HTTP exceptions.
    if (e instanceof HttpException) {
      const status = e.getStatus();
      if (status === 404) return new SpindleError('not_found', 'no such route');
      if (status === 413) return new SpindleError('payload_too_large', `the body is larger than this server accepts (${e.message})`);
      if (status === 415) return new SpindleError('unsupported_media_type', 'send the body as application/json');
      if (status < 500) return new SpindleError('validation_failed', e.message);
    }
    return new SpindleError('internal', 'internal error');
  }
}
