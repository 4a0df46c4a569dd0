import { join, resolve } from 'node:path';
import { parseServiceConfig, type ServiceConfig } from '@spindle/service-kit';

export interface GatewayConfig extends ServiceConfig {
  readonly bodyLimitBytes: number;
  /** Deepest nesting of arrays and objects a JSON body may have. */
  readonly maxJsonDepth: number;
  /** The request line and headers together (Node's `maxHeaderSize`); more is `431 headers_too_large`. */
  readonly maxHeaderBytes: number;
  readonly idempotencyTtlHours: number;
  /** How long a read waits for the trace recorder to apply the run's last event. */
  readonly projectionWaitMs: number;
  readonly heartbeatMs: number;
  /** The built console (`apps/console/dist`), served at `/`. */
  readonly consoleDir: string;
  /** Exact origins (`https://app.example`) whose pages may call the API: CORS, and state changes. */
  readonly corsOrigins: readonly string[];
  /** Take the request's scheme and host from `X-Forwarded-Proto`/`-Host` (behind a proxy that sets them). */
  readonly trustProxy: boolean;
}

/** Longest path parameter Fastify's router accepts (`414 uri_too_long` past it); ids are at most 64. */
export const MAX_PATH_PARAM_LENGTH = 100;

export function parseGatewayConfig(env: Record<string, string | undefined>): GatewayConfig {
  const base = parseServiceConfig(env, 'gateway', 'PORT', 8080);
  const positive = (name: string, fallback: number) => {
    const value = Number(env[name] ?? fallback);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number (got "${env[name]}")`);
    return value;
  };
  const positiveInteger = (name: string, fallback: number) => {
    const value = positive(name, fallback);
    if (!Number.isInteger(value)) throw new Error(`${name} must be a whole number (got "${env[name]}")`);
    return value;
  };
  return Object.freeze({
    ...base,
    bodyLimitBytes: positive('GATEWAY_BODY_LIMIT_BYTES', 1_048_576),
    maxJsonDepth: positiveInteger('SPINDLE_MAX_JSON_DEPTH', 64),
    maxHeaderBytes: positiveInteger('GATEWAY_MAX_HEADER_BYTES', 16_384),
    idempotencyTtlHours: positive('IDEMPOTENCY_TTL_HOURS', 24),
    projectionWaitMs: positive('PROJECTION_WAIT_MS', 3_000),
    heartbeatMs: positive('SSE_HEARTBEAT_MS', 15_000),
    consoleDir: resolve(env.CONSOLE_DIR ?? join(__dirname, '..', '..', 'console', 'dist')),
    corsOrigins: Object.freeze(parseOrigins('SPINDLE_CORS_ORIGINS', env.SPINDLE_CORS_ORIGINS)),
    trustProxy: parseFlag('SPINDLE_TRUST_PROXY', env.SPINDLE_TRUST_PROXY),
  });
}

/**
 * Comma-separated origins, each exactly as a browser sends it in `Origin`: scheme, host and a
 * port only when it is not the default (`http://localhost:5173`), no path, no trailing slash.
 * Anything else would never match, so it is refused at start-up rather than ignored.
 */
function parseOrigins(name: string, text: string | undefined): string[] {
  const origins = (text ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let canonical: string | undefined;
    try {
      const url = new URL(origin);
      canonical = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
    } catch {
      canonical = undefined;
    }
    if (canonical !== origin)
      throw new Error(
        `${name}: "${origin}" is not an origin like https://app.example or http://localhost:5173` +
          (canonical ? ` (did you mean ${canonical}?)` : ''),
      );
  }
  return origins;
}

function parseFlag(name: string, text: string | undefined): boolean {
  if (text === undefined || text === '' || text === 'false' || text === '0') return false;
  if (text === 'true' || text === '1') return true;
  throw new Error(`${name} must be true or false (got "${text}")`);
}
