import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { MAX_PATH_PARAM_LENGTH, type GatewayConfig } from '../gateway.config';
import { installConsole } from './console-static';
import { clientErrorHandler, frameworkErrorHandler } from './http-parse-errors';
import { installJsonBodyParser } from './json-body-parser';
import { installOriginGuard } from './origin-guard';
import { installRequestTracing } from './request-tracing';

/**
 * Fastify-level set-up the gateway needs before it listens. Every limit here is answered as
 * problem+json with a Spindle code, including the ones Node and Fastify enforce before a request
 * reaches Nest (malformed HTTP, oversized headers, bad percent-encoding, long path segments).
 */
export function gatewayHttpSetup(config: GatewayConfig) {
  return {
    bodyLimit: config.bodyLimitBytes,
    ownBodyParser: true,
    fastify: {
      frameworkErrors: frameworkErrorHandler(MAX_PATH_PARAM_LENGTH),
      clientErrorHandler: clientErrorHandler(config.maxHeaderBytes),
      routerOptions: { maxParamLength: MAX_PATH_PARAM_LENGTH },
      http: { maxHeaderSize: config.maxHeaderBytes },
    },
    beforeListen: (app: NestFastifyApplication) => {
      const fastify = app.getHttpAdapter().getInstance();
      // First, so a refused cross-origin request is not traced as work and reaches no handler.
      installOriginGuard(fastify, { allowedOrigins: new Set(config.corsOrigins), trustProxy: config.trustProxy });
      installJsonBodyParser(fastify, { bodyLimitBytes: config.bodyLimitBytes, maxDepth: config.maxJsonDepth });
      installRequestTracing(fastify);
      installConsole(fastify, config.consoleDir);
    },
  };
}
