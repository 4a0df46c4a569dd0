import 'reflect-metadata';
import { bootstrapService, parseServiceConfig, runMain } from '@spindle/service-kit';
import { startTelemetry } from '@spindle/telemetry';
import { parseApprovalConfig } from './approval.config';
import { ApprovalModule } from './app.module';

runMain('approval', async () => {
  const config = parseServiceConfig(process.env, 'approval', 'APPROVAL_PORT', 8084);
  const approval = parseApprovalConfig(process.env);
  startTelemetry({ serviceName: 'spindle-approval', otlpEndpoint: config.otlpEndpoint });
  await bootstrapService(ApprovalModule.forRoot(config, approval), config);
});
