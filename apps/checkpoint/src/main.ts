import 'reflect-metadata';
import { bootstrapService, parseServiceConfig, runMain } from '@spindle/service-kit';
import { startTelemetry } from '@spindle/telemetry';
import { CheckpointModule } from './app.module';
import { parseCheckpointSettings } from './checkpoint-settings';

runMain('checkpoint', async () => {
  const config = parseServiceConfig(process.env, 'checkpoint', 'CHECKPOINT_PORT', 8083);
  const settings = parseCheckpointSettings(process.env);
  startTelemetry({ serviceName: 'spindle-checkpoint', otlpEndpoint: config.otlpEndpoint });
  await bootstrapService(CheckpointModule.forRoot(config, settings), config);
});
