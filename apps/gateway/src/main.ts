import 'reflect-metadata';
import { bootstrapService, runMain } from '@spindle/service-kit';
import { startTelemetry } from '@spindle/telemetry';
import { GatewayModule } from './app.module';
import { parseGatewayConfig } from './gateway.config';
import { installJsonBodyParser } from './http/json-body-parser';
import { installRequestTracing } from './http/request-tracing';

runMain('gateway', async () => {
  const config = parseGatewayConfig(process.env);
  startTelemetry({ serviceName: 'spindle-gateway', otlpEndpoint: config.otlpEndpoint });
  await bootstrapService(GatewayModule.forRoot(config), config, {
    bodyLimit: config.bodyLimitBytes,
    ownBodyParser: true,
    beforeListen: (app) => {
      const fastify = app.getHttpAdapter().getInstance();
      installJsonBodyParser(fastify, config.bodyLimitBytes);
      installRequestTracing(fastify);
    },
  });
});
