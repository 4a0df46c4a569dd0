import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { GatewayConfig } from '../gateway.config';
import { installConsole } from './console-static';
import { installJsonBodyParser } from './json-body-parser';
import { installRequestTracing } from './request-tracing';

/** Fastify-level set-up the gateway needs before it listens. */
export function gatewayHttpSetup(config: GatewayConfig) {
  return {
    bodyLimit: config.bodyLimitBytes,
    ownBodyParser: true,
    beforeListen: (app: NestFastifyApplication) => {
      const fastify = app.getHttpAdapter().getInstance();
      installJsonBodyParser(fastify, config.bodyLimitBytes);
      installRequestTracing(fastify);
      installConsole(fastify, config.consoleDir);
    },
  };
}
