import 'reflect-metadata';
import { bootstrapService, parseServiceConfig, runMain } from '@spindle/service-kit';
import { startTelemetry } from '@spindle/telemetry';
import { CheckpointModule } from './app.module';

runMain('checkpoint', async () => {
  const config = parseServiceConfig(process.env, 'checkpoint', 'CHECKPOINT_PORT', 8083);
  startTelemetry({ serviceName: 'spindle-checkpoint', otlpEndpoint: config.otlpEndpoint });
  await bootstrapService(CheckpointModule.forRoot(config), config);
});
