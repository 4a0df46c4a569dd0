import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { isSpindleError, SpindleError, type ErrorCode } from '@spindle/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { httpStatusByCode } from './http-status.map';

/** Fastify's own request errors, named by their stable codes. */
const fastifyCodes: Record<string, { code: ErrorCode; message?: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'invalid_json' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'invalid_json', message: 'the body is empty; send a JSON object (e.g. {})' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'payload_too_large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'unsupported_media_type', message: 'send application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'validation_failed' },
};

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
    const fastify = fastifyCodes[(e as { code?: string })?.code ?? ''];
    if (fastify) return new SpindleError(fastify.code, fastify.message ?? (e as Error).message);
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
