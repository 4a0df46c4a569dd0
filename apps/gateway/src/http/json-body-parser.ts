import { SpindleError } from '@spindle/contracts';
import type { FastifyInstance } from 'fastify';
import { nestsDeeperThan } from './json-depth';
import { isJsonRpcEndpoint, UNPARSABLE_BODY } from './json-rpc-body';

export interface JsonBodyLimits {
  bodyLimitBytes: number;
  /** Deepest nesting of arrays and objects a body may have (`SPINDLE_MAX_JSON_DEPTH`). */
  maxDepth: number;
}

/**
 * Fastify's JSON parser (with its prototype-poisoning guards), but failures become Spindle
 * errors: Nest would otherwise turn them into bare HTTP exceptions and lose which problem it was.
 * An empty body reads as "no body", so `POST .../runs` without one starts a run with no input.
 * The depth is checked on the text before parsing, so no deep value ever reaches recursive code.
 * On a JSON-RPC endpoint a body that does not parse is handed on as `UNPARSABLE_BODY`, for its parse error.
 */
export function installJsonBodyParser(fastify: FastifyInstance, limits: JsonBodyLimits): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  // JSON only: any other media type is refused with 415 rather than parsed as something else.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: limits.bodyLimitBytes }, (request, body, done) => {
    const text = String(body);
    if (text === '') return done(null, undefined);
    if (nestsDeeperThan(text, limits.maxDepth)) {
      return done(
        new SpindleError('nesting_too_deep', `the body nests arrays and objects more than ${limits.maxDepth} levels deep`, {
          issues: [{ field: '(body)', message: `deeper than ${limits.maxDepth} levels` }],
        }),
        undefined,
      );
    }
    parseJson(request, text, (error, value) => {
      if (error && isJsonRpcEndpoint(request.url)) return done(null, UNPARSABLE_BODY);
      if (error) return done(new SpindleError('invalid_json', `the body is not valid JSON: ${error.message}`), undefined);
      done(null, value);
    });
  });
}
