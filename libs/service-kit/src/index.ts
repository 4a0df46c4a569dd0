export { parseServiceConfig } from './service-config';
export type { ServiceConfig } from './service-config';
export { SERVICE_CONFIG, BUS, DATABASE, LOGGER, METRICS, READINESS } from './tokens';
export { connectInfraBus, connectInfraDatabase } from './infra-connect';
export { InfraModule } from './infra.module';
export type { InfraOptions } from './infra.module';
export { HealthController } from './health.controller';
export type { ReadinessCheck } from './health.controller';
export { bootstrapService, runMain } from './bootstrap-service';
