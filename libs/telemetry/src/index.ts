export { startTelemetry } from './telemetry.bootstrap';
export type { Telemetry, TelemetryOptions } from './telemetry.bootstrap';
export {
  extractFromRecord,
  extractTraceContext,
  injectIntoRecord,
  injectTraceContext,
} from './nats-trace-context';
export { withSpan } from './with-span.helper';
export type { WithSpanOptions } from './with-span.helper';
export { createLogger } from './json-logger';
export type { JsonLoggerOptions, Logger } from './json-logger';
export { PinoNestLogger } from './pino-nest.logger';
export { createMetrics, METRICS_PREFIX, renderMetrics } from './metrics.registry';
export type { RenderedMetrics } from './metrics.registry';
