import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { MAX_PATH_PARAM_LENGTH, type GatewayConfig } from '../gateway.config';
import type { SpindleError } from '@spindle/contracts';
import { installConsole } from './console-static';
import { httpStatusByCode } from './http-status.map';
import { problemBody, problemHeaders } from './problem-response';
import { clientErrorHandler, frameworkErrorHandler } from './http-parse-errors';
import { installJsonBodyParser } from './json-body-parser';
import { installJsonOnlyStateChanges, installOriginGuard } from './origin-guard';
import { installRequestTracing } from './request-tracing';
import { installHttpMetrics } from './http-metrics';
import { installUnreadBodyDrain } from './unread-body-drain';
import { installUploadBodies, isUploadRoute } from './upload-body';
import { METRICS } from '@spindle/service-kit';
import type { Registry } from 'prom-client';
import { Authenticator } from '@spindle/identity';
import { installAuthentication } from '../identity/auth.hook';
import { RunOwnership } from '../identity/run-ownership';

/** How long an answer waits for the rest of a body nobody will read. */
const UNREAD_BODY_LINGER_MS = 5_000;

/**
 * Fastify-level set-up the gateway needs before it listens. Every limit here is answered as
 * problem+json with a Spindle code, including the ones Node and Fastify enforce before a request
 * reaches Nest (malformed HTTP, oversized headers, bad percent-encoding, long path segments).
 */
export function gatewayHttpSetup(config: GatewayConfig) {
  // A refusal of an unread body still reaches a client that is writing it (lingering close).
  const unreadBody = { maxBytes: 4 * config.bodyLimitBytes, lingerMs: UNREAD_BODY_LINGER_MS };
  const timeouts = config.httpTimeouts;
  return {
    bodyLimit: config.bodyLimitBytes,
    ownBodyParser: true,
    // Waiting for Postgres at start, the port answers every route as the gateway would in an outage.
    startupAnswer: (error: SpindleError, url: string) => ({
      status: httpStatusByCode[error.code],
      headers: problemHeaders(error),
      body: JSON.stringify(problemBody(error, url)),
    }),
    fastify: {
      frameworkErrors: frameworkErrorHandler(MAX_PATH_PARAM_LENGTH, unreadBody),
      clientErrorHandler: clientErrorHandler(config.maxHeaderBytes),
      routerOptions: { maxParamLength: MAX_PATH_PARAM_LENGTH },
      // Against slow clients (slowloris): headers and the whole request each have a deadline, checked
      // often enough to keep it (Node looks every `connectionsCheckingInterval`); a late one is answered
      // 408 by clientErrorHandler. Both clocks stop once the request is in, so an event stream, which is
      // a response, runs as long as it needs. No socket idle timeout (`connectionTimeout`): a protocol
      // stream waiting on a person writes nothing for minutes and must not be cut.
      http: {
        maxHeaderSize: config.maxHeaderBytes,
        headersTimeout: timeouts.headersTimeoutMs,
        requestTimeout: timeouts.requestTimeoutMs,
        connectionsCheckingInterval: Math.max(100, Math.min(30_000, Math.floor(timeouts.headersTimeoutMs / 4))),
      },
      requestTimeout: timeouts.requestTimeoutMs,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      // The client's address for the audit trail comes from X-Forwarded-For only behind a trusted proxy.
      trustProxy: config.trustProxy,
    },
    beforeListen: (app: NestFastifyApplication) => {
      const fastify = app.getHttpAdapter().getInstance();
      // First cross-origin refusals and CORS headers (so a page can read even a 401), then credentials:
      // nothing of a request without valid ones is read, not even its body.
      installOriginGuard(fastify, { allowedOrigins: new Set(config.corsOrigins), trustProxy: config.trustProxy });
      installAuthentication(fastify, () => ({ authenticator: app.get(Authenticator), runs: app.get(RunOwnership) }));
      installJsonOnlyStateChanges(fastify, isUploadRoute);
      installJsonBodyParser(fastify, { bodyLimitBytes: config.bodyLimitBytes, maxDepth: config.maxJsonDepth });
      installUploadBodies(fastify);
      installRequestTracing(fastify);
      installUnreadBodyDrain(fastify, unreadBody);
      installHttpMetrics(fastify, app.get<Registry>(METRICS));
      installConsole(fastify, config.consoleDir);
    },
  };
}
