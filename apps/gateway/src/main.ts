import 'reflect-metadata';
import { bootstrapService, runMain } from '@spindle/service-kit';
import { startTelemetry } from '@spindle/telemetry';
import { GatewayModule } from './app.module';
import { parseGatewayConfig } from './gateway.config';
import { gatewayHttpSetup } from './http/gateway-http.setup';

runMain('gateway', async () => {
  const config = parseGatewayConfig(process.env);
  startTelemetry({ serviceName: 'spindle-gateway', otlpEndpoint: config.otlpEndpoint });
  await bootstrapService(GatewayModule.forRoot(config), config, gatewayHttpSetup(config));
});
