import type { QuotaDefaults } from '@spindle/control-plane';
import { join, resolve } from 'node:path';
import { parseEgressAllowList, type EgressPolicy } from '@spindle/egress';
import { parseOidcSettings, type OidcSettings } from '@spindle/identity';
import { parseServiceConfig, type ServiceConfig } from '@spindle/service-kit';
import type { StreamLimits } from './runs/stream-limits';

export interface AuthConfig {
  /** `SPINDLE_AUTH=off`: no credentials asked (local development on a loopback address only). */
  readonly authOff: boolean;
  /** Access tokens of this OpenID Connect provider are accepted besides API keys. */
  readonly oidc?: {
    readonly settings: OidcSettings;
    /** The console's public client (authorization code + PKCE); without it the console offers keys only. */
    readonly consoleClientId?: string;
    readonly consoleScope: string;
    /** Least time between two refetches of the provider's keys for a token naming an unknown key. */
    readonly jwksCooldownMs: number;
  };
  /** How long a looked-up key is trusted: a key revoked on another gateway works there this much longer. */
  readonly keyCacheMs: number;
  /** On first start (no key at all), an admin key of the default tenant is written here. */
  readonly bootstrapKeyFile?: string;
}

export interface WebhookConfig {
  /** `SPINDLE_WEBHOOK_ALLOW_HTTP=true`: http targets too (development). */
  readonly allowHttp: boolean;
  /** `SPINDLE_WEBHOOK_ALLOWED_HOSTS`: internal hosts and networks a webhook may still reach (names, addresses, CIDR ranges). */
  readonly egress: EgressPolicy;
  readonly retryBaseMs: number;
  readonly retryForMs: number;
  readonly timeoutMs: number;
}

/** The HTTP server's clocks against slow clients (Node's `headersTimeout`, `requestTimeout`, `keepAliveTimeout`). */
export interface HttpTimeouts {
  /** The request line and headers must arrive within this; else `408` and the connection is closed. */
  readonly headersTimeoutMs: number;
  /** The whole request, body included, must arrive within this. A response (an event stream) is not limited by it. */
  readonly requestTimeoutMs: number;
  /** How long an idle keep-alive connection between two requests is kept. */
  readonly keepAliveTimeoutMs: number;
}

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
  /** Event streams (runs' events, AG-UI, A2A, MCP, chat) one principal and one tenant may hold open on this gateway. */
  readonly streams: StreamLimits;
  readonly httpTimeouts: HttpTimeouts;
  /** The built console (`apps/console/dist`), served at `/`. */
  readonly consoleDir: string;
  /** Exact origins (`https://app.example`) whose pages may call the API: CORS, and state changes. */
  readonly corsOrigins: readonly string[];
  /** Take the request's scheme and host from `X-Forwarded-Proto`/`-Host` (behind a proxy that sets them). */
  readonly trustProxy: boolean;
  readonly auth: AuthConfig;
  readonly quotas: QuotaDefaults;
  readonly webhooks: WebhookConfig;
  /** `SPINDLE_SCHEDULE_MIN_INTERVAL_MS`: a cron that fires more often is refused (60 s). */
  readonly scheduleMinIntervalMs: number;
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
  const httpTimeouts = Object.freeze({
    headersTimeoutMs: positiveInteger('GATEWAY_HEADERS_TIMEOUT_MS', 10_000),
    requestTimeoutMs: positiveInteger('GATEWAY_REQUEST_TIMEOUT_MS', 30_000),
    keepAliveTimeoutMs: positiveInteger('GATEWAY_KEEP_ALIVE_TIMEOUT_MS', 72_000),
  });
  // Node refuses a headers timeout longer than the request's: say so by name.
  if (httpTimeouts.headersTimeoutMs > httpTimeouts.requestTimeoutMs)
    throw new Error('GATEWAY_HEADERS_TIMEOUT_MS must not be longer than GATEWAY_REQUEST_TIMEOUT_MS');
  return Object.freeze({
    ...base,
    bodyLimitBytes: positive('GATEWAY_BODY_LIMIT_BYTES', 1_048_576),
    maxJsonDepth: positiveInteger('SPINDLE_MAX_JSON_DEPTH', 64),
    maxHeaderBytes: positiveInteger('GATEWAY_MAX_HEADER_BYTES', 16_384),
    idempotencyTtlHours: positive('IDEMPOTENCY_TTL_HOURS', 24),
    projectionWaitMs: positive('PROJECTION_WAIT_MS', 3_000),
    heartbeatMs: positive('SSE_HEARTBEAT_MS', 15_000),
    streams: Object.freeze({
      perKey: positiveInteger('SPINDLE_STREAMS_PER_KEY', 100),
      perTenant: positiveInteger('SPINDLE_STREAMS_PER_TENANT', 500),
      retryAfterSec: positiveInteger('SPINDLE_STREAMS_RETRY_AFTER_SEC', 5),
    }),
    httpTimeouts,
    consoleDir: resolve(env.CONSOLE_DIR ?? join(__dirname, '..', '..', 'console', 'dist')),
    corsOrigins: Object.freeze(parseOrigins('SPINDLE_CORS_ORIGINS', env.SPINDLE_CORS_ORIGINS)),
    trustProxy: parseFlag('SPINDLE_TRUST_PROXY', env.SPINDLE_TRUST_PROXY),
    auth: parseAuth(env, base.host),
    quotas: Object.freeze({
      maxRunning: positiveInteger('SPINDLE_TENANT_MAX_RUNNING', 100),
      startsPerMinute: positiveInteger('SPINDLE_TENANT_STARTS_PER_MINUTE', 600),
      dailyTokenBudget: env.SPINDLE_TENANT_DAILY_TOKENS ? positiveInteger('SPINDLE_TENANT_DAILY_TOKENS', 1) : null,
      dailyCostBudgetUsd: env.SPINDLE_TENANT_DAILY_COST_USD ? positive('SPINDLE_TENANT_DAILY_COST_USD', 1) : null,
      dispatchWindow: positiveInteger('SPINDLE_DISPATCH_WINDOW', 16),
    }),
    scheduleMinIntervalMs: positiveInteger('SPINDLE_SCHEDULE_MIN_INTERVAL_MS', 60_000),
    webhooks: Object.freeze({
      allowHttp: parseFlag('SPINDLE_WEBHOOK_ALLOW_HTTP', env.SPINDLE_WEBHOOK_ALLOW_HTTP),
      egress: parseEgressAllowList(env.SPINDLE_WEBHOOK_ALLOWED_HOSTS, 'SPINDLE_WEBHOOK_ALLOWED_HOSTS'),
      retryBaseMs: positiveInteger('SPINDLE_WEBHOOK_RETRY_BASE_MS', 5_000),
      retryForMs: positiveInteger('SPINDLE_WEBHOOK_RETRY_FOR_MS', 86_400_000),
      timeoutMs: positiveInteger('SPINDLE_WEBHOOK_TIMEOUT_MS', 10_000),
    }),
  });
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

function parseAuth(env: Record<string, string | undefined>, host: string): AuthConfig {
  const mode = env.SPINDLE_AUTH ?? 'on';
  if (mode !== 'on' && mode !== 'off') throw new Error(`SPINDLE_AUTH must be on or off (got "${mode}")`);
  if (mode === 'off' && !LOOPBACK.has(host)) {
    throw new Error(
      `SPINDLE_AUTH=off lets anyone who reaches the gateway do anything; it is refused on HOST=${host}. ` +
        'Set HOST=127.0.0.1 for local development, or turn authentication on.',
    );
  }
  const settings = parseOidcSettings(env);
  const keyCacheMs = boundedInteger(env, 'SPINDLE_KEY_CACHE_MS', 5_000, 0, 60_000);
  return Object.freeze({
    authOff: mode === 'off',
    ...(settings && {
      oidc: Object.freeze({
        settings,
        ...(env.SPINDLE_OIDC_CONSOLE_CLIENT_ID && { consoleClientId: env.SPINDLE_OIDC_CONSOLE_CLIENT_ID }),
        consoleScope: env.SPINDLE_OIDC_CONSOLE_SCOPE ?? 'openid profile',
        jwksCooldownMs: boundedInteger(env, 'SPINDLE_OIDC_JWKS_COOLDOWN_MS', 30_000, 0, 600_000),
      }),
    }),
    keyCacheMs,
    ...(env.SPINDLE_BOOTSTRAP_KEY_FILE && { bootstrapKeyFile: resolve(env.SPINDLE_BOOTSTRAP_KEY_FILE) }),
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

function boundedInteger(env: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number): number {
  const value = Number(env[name] ?? fallback);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be a whole number from ${min} to ${max}`);
  return value;
}
