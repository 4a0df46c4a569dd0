import 'reflect-metadata';
import { bootstrapService, runMain } from '@spindle/service-kit';
import { startTelemetry } from '@spindle/telemetry';
import { DispatcherModule } from './app.module';
import { parseDispatcherConfig } from './dispatcher.config';

runMain('dispatcher', async () => {
  const config = parseDispatcherConfig(process.env);
  startTelemetry({ serviceName: 'spindle-dispatcher', otlpEndpoint: config.otlpEndpoint });
  await bootstrapService(DispatcherModule.forRoot(config), config);
});
