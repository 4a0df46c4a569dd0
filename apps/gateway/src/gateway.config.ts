import { parseControlPlaneSettings, type ControlPlaneSettings } from '@spindle/control-plane';
import { join, resolve } from 'node:path';
import { checkStreamTokenSecret, parseOidcSettings, type OidcSettings } from '@spindle/identity';
import { envBoolean, envInteger, envPositive, parseEnv, type Env } from '@spindle/contracts';
import { parseServiceConfig, type ServiceConfig } from '@spindle/service-kit';
import { z } from 'zod';
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
  /** `SPINDLE_STREAM_TOKEN_SECRET`: signs stream tokens; unset, a random one per process (tokens work only where minted). */
  readonly streamTokenSecret?: string;
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

export interface GatewayConfig extends ServiceConfig, ControlPlaneSettings {
  readonly bodyLimitBytes: number;
  /** Deepest nesting of arrays and objects a JSON body may have. */
  readonly maxJsonDepth: number;
  /** The request line and headers together (Node's `maxHeaderSize`); more is `431 headers_too_large`. */
  readonly maxHeaderBytes: number;
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
  /** `SPINDLE_SCHEDULE_MIN_INTERVAL_MS`: a cron that fires more often is refused (60 s). */
  readonly scheduleMinIntervalMs: number;
}

/** Longest path parameter Fastify's router accepts (`414 uri_too_long` past it); ids are at most 64. */
export const MAX_PATH_PARAM_LENGTH = 100;

/** The gateway's own variables; names and defaults are the deployment's contract (deploy/, compose). */
const envSchema = z.object({
  GATEWAY_HEADERS_TIMEOUT_MS: envInteger(10_000, 1),
  GATEWAY_REQUEST_TIMEOUT_MS: envInteger(30_000, 1),
  GATEWAY_KEEP_ALIVE_TIMEOUT_MS: envInteger(72_000, 1),
  GATEWAY_BODY_LIMIT_BYTES: envPositive(1_048_576),
  SPINDLE_MAX_JSON_DEPTH: envInteger(64, 1),
  GATEWAY_MAX_HEADER_BYTES: envInteger(16_384, 1),
  SSE_HEARTBEAT_MS: envPositive(15_000),
  SPINDLE_STREAMS_PER_KEY: envInteger(100, 1),
  SPINDLE_STREAMS_PER_TENANT: envInteger(500, 1),
  SPINDLE_STREAMS_RETRY_AFTER_SEC: envInteger(5, 1),
  CONSOLE_DIR: z.string().optional(),
  SPINDLE_TRUST_PROXY: envBoolean(false),
  SPINDLE_SCHEDULE_MIN_INTERVAL_MS: envInteger(60_000, 1),
  SPINDLE_AUTH: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
  SPINDLE_KEY_CACHE_MS: envInteger(5_000, 0, 60_000),
  SPINDLE_OIDC_JWKS_COOLDOWN_MS: envInteger(30_000, 0, 600_000),
});
type GatewayEnv = z.output<typeof envSchema>;

export function parseGatewayConfig(env: Env): GatewayConfig {
  const base = parseServiceConfig(env, 'gateway', 'PORT', 8080);
  const e = parseEnv(envSchema, env, 'gateway');
  const httpTimeouts = Object.freeze({
    headersTimeoutMs: e.GATEWAY_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: e.GATEWAY_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: e.GATEWAY_KEEP_ALIVE_TIMEOUT_MS,
  });
  // Node refuses a headers timeout longer than the request's: say so by name.
  if (httpTimeouts.headersTimeoutMs > httpTimeouts.requestTimeoutMs)
    throw new Error('GATEWAY_HEADERS_TIMEOUT_MS must not be longer than GATEWAY_REQUEST_TIMEOUT_MS');
  return Object.freeze({
    ...base,
    ...parseControlPlaneSettings(env, 'gateway'),
    bodyLimitBytes: e.GATEWAY_BODY_LIMIT_BYTES,
    maxJsonDepth: e.SPINDLE_MAX_JSON_DEPTH,
    maxHeaderBytes: e.GATEWAY_MAX_HEADER_BYTES,
    heartbeatMs: e.SSE_HEARTBEAT_MS,
    streams: Object.freeze({
      perKey: e.SPINDLE_STREAMS_PER_KEY,
      perTenant: e.SPINDLE_STREAMS_PER_TENANT,
      retryAfterSec: e.SPINDLE_STREAMS_RETRY_AFTER_SEC,
    }),
    httpTimeouts,
    consoleDir: resolve(e.CONSOLE_DIR ?? join(__dirname, '..', '..', 'console', 'dist')),
    corsOrigins: Object.freeze(parseOrigins('SPINDLE_CORS_ORIGINS', env.SPINDLE_CORS_ORIGINS)),
    trustProxy: e.SPINDLE_TRUST_PROXY,
    auth: parseAuth(env, e, base.host),
    scheduleMinIntervalMs: e.SPINDLE_SCHEDULE_MIN_INTERVAL_MS,
  });
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

function parseAuth(env: Env, e: GatewayEnv, host: string): AuthConfig {
  const mode = e.SPINDLE_AUTH;
  if (mode === 'off' && !LOOPBACK.has(host)) {
    throw new Error(
      `SPINDLE_AUTH=off lets anyone who reaches the gateway do anything; it is refused on HOST=${host}. ` +
        'Set HOST=127.0.0.1 for local development, or turn authentication on.',
    );
  }
  const settings = parseOidcSettings(env);
  return Object.freeze({
    authOff: mode === 'off',
    ...(settings && {
      oidc: Object.freeze({
        settings,
        ...(env.SPINDLE_OIDC_CONSOLE_CLIENT_ID && { consoleClientId: env.SPINDLE_OIDC_CONSOLE_CLIENT_ID }),
        consoleScope: env.SPINDLE_OIDC_CONSOLE_SCOPE ?? 'openid profile',
        jwksCooldownMs: e.SPINDLE_OIDC_JWKS_COOLDOWN_MS,
      }),
    }),
    keyCacheMs: e.SPINDLE_KEY_CACHE_MS,
    ...(env.SPINDLE_BOOTSTRAP_KEY_FILE && { bootstrapKeyFile: resolve(env.SPINDLE_BOOTSTRAP_KEY_FILE) }),
    ...(env.SPINDLE_STREAM_TOKEN_SECRET !== undefined && { streamTokenSecret: checkStreamTokenSecret(env.SPINDLE_STREAM_TOKEN_SECRET) }),
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
