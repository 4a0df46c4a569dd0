import 'reflect-metadata';
import { bootstrapService, runMain } from '@spindle/service-kit';
import { startTelemetry } from '@spindle/telemetry';
import { RunnerModule } from './app.module';
import { parseRunnerConfig } from './runner.config';

runMain('runner', async () => {
  const config = parseRunnerConfig(process.env);
  startTelemetry({ serviceName: 'spindle-runner', otlpEndpoint: config.otlpEndpoint });
  await bootstrapService(RunnerModule.forRoot(config), config);
});
