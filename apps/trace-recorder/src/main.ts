import { bootstrapService, parseServiceConfig, runMain } from '@spindle/service-kit';
import { startTelemetry } from '@spindle/telemetry';
import { AppModule } from './app.module';

runMain('trace-recorder', async () => {
  const config = parseServiceConfig(process.env, 'trace-recorder', 'TRACE_RECORDER_PORT', 8082);
  startTelemetry({ serviceName: config.service, otlpEndpoint: config.otlpEndpoint });
  await bootstrapService(AppModule.forConfig(config), config);
});
