import { join, resolve } from 'node:path';
import { parseServiceConfig, type ServiceConfig } from '@spindle/service-kit';

export interface GatewayConfig extends ServiceConfig {
  readonly bodyLimitBytes: number;
  readonly idempotencyTtlHours: number;
  /** How long a read waits for the trace recorder to apply the run's last event. */
  readonly projectionWaitMs: number;
  readonly heartbeatMs: number;
  /** The built console (`apps/console/dist`), served at `/`. */
  readonly consoleDir: string;
}

export function parseGatewayConfig(env: Record<string, string | undefined>): GatewayConfig {
  const base = parseServiceConfig(env, 'gateway', 'PORT', 8080);
  const positive = (name: string, fallback: number) => {
    const value = Number(env[name] ?? fallback);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number (got "${env[name]}")`);
    return value;
  };
  return Object.freeze({
    ...base,
    bodyLimitBytes: positive('GATEWAY_BODY_LIMIT_BYTES', 1_048_576),
    idempotencyTtlHours: positive('IDEMPOTENCY_TTL_HOURS', 24),
    projectionWaitMs: positive('PROJECTION_WAIT_MS', 3_000),
    heartbeatMs: positive('SSE_HEARTBEAT_MS', 15_000),
    consoleDir: resolve(env.CONSOLE_DIR ?? join(__dirname, '..', '..', 'console', 'dist')),
  });
}
