import { SpindleError } from '@spindle/contracts';
import type { FastifyInstance } from 'fastify';

/**
 * Fastify's JSON parser (with its prototype-poisoning guards), but failures become Spindle
 * errors: Nest would otherwise turn them into bare HTTP exceptions and lose which problem it was.
 * An empty body reads as "no body", so `POST .../runs` without one starts a run with no input.
 */
export function installJsonBodyParser(fastify: FastifyInstance, bodyLimit: number): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  // JSON only: any other media type is refused with 415 rather than parsed as something else.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    parseJson(request, String(body), (error, value) => {
      if (error) return done(new SpindleError('invalid_json', `the body is not valid JSON: ${error.message}`), undefined);
      done(null, value);
    });
  });
}
