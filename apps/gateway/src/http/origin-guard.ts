import { isRawDocumentUpload } from '../knowledge/document-body.parser';
import type { TLSSocket } from 'node:tls';
import { SpindleError } from '@spindle/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { decideOrigin, isJsonMediaType, isStateChanging, type OriginPolicy, type RequestSite } from './origin-policy';
import { sendProblem } from './problem-response';

const ALLOW_METHODS = 'GET, HEAD, POST, PUT, DELETE';
const ALLOW_HEADERS = 'content-type, idempotency-key, last-event-id, authorization, traceparent';
const EXPOSE_HEADERS = 'Location, Idempotent-Replayed, WWW-Authenticate, Retry-After';
/** How long a browser may reuse a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = '600';

/**
 * The first hook of every request: refuses state changes from pages on other origins
 * (`403 cross_origin_refused`); answers CORS preflights from allow-listed origins and marks their
 * responses readable. CORS headers go on the raw response, so the SSE streams (written straight
 * to it) and problem answers (a `401` a page must be able to read) carry them too.
 */
export function installOriginGuard(fastify: FastifyInstance, policy: OriginPolicy): void {
  fastify.addHook('onRequest', async (request, reply) => {
    // With an allow-list the answer depends on Origin, so caches must keep them apart.
    if (policy.allowedOrigins.size > 0) reply.raw.setHeader('Vary', 'Origin');
    const decision = decideOrigin(siteOf(request), policy);
    if (decision.kind === 'refuse') return sendProblem(reply, new SpindleError('cross_origin_refused', decision.reason));
    if (decision.kind === 'preflight') {
      return reply
        .status(204)
        .header('access-control-allow-origin', decision.allowOrigin)
        .header('access-control-allow-methods', ALLOW_METHODS)
        .header('access-control-allow-headers', ALLOW_HEADERS)
        .header('access-control-max-age', PREFLIGHT_MAX_AGE)
        .header('vary', 'Origin')
        .send();
    }
    if (decision.allowOrigin) {
      reply.raw.setHeader('Access-Control-Allow-Origin', decision.allowOrigin);
      reply.raw.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
      reply.raw.setHeader('Vary', 'Origin');
    }
  });
}

/**
 * Refuses state changes that are not `application/json` (`415`), even without a body, so no
 * cross-site "simple" request (a form, a `text/plain` fetch) can start or cancel a run. After
 * authentication: a request without credentials is a `401` whatever it carries.
 */
export function installJsonOnlyStateChanges(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', async (request, reply) => {
    const rawDocument = isRawDocumentUpload(request.method, request.url, request.headers['content-type']);
    if (isStateChanging(request.method) && !isJsonMediaType(request.headers['content-type']) && !rawDocument) {
      return sendProblem(
        reply,
        new SpindleError(
          'unsupported_media_type',
          `${request.method} requests must be sent with Content-Type: application/json, even without a body`,
        ),
      );
    }
  });
}

function siteOf(request: FastifyRequest): RequestSite {
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  return {
    method: request.method,
    origin: header('origin'),
    secFetchSite: header('sec-fetch-site'),
    requestedMethod: header('access-control-request-method'),
    host: header('host'),
    encrypted: Boolean((request.raw.socket as TLSSocket | undefined)?.encrypted),
    forwardedProto: header('x-forwarded-proto'),
    forwardedHost: header('x-forwarded-host'),
  };
}
