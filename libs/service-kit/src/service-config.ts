import { existsSync, readFileSync } from 'node:fs';
import type { BusAuth, BusTls } from '@spindle/bus';
import { compileSecretPatterns, type SecretMaskingConfig } from '@spindle/telemetry';
import { z } from 'zod';
import { envInteger, parseEnv, type Env } from '@spindle/contracts';

/** Settings every Spindle service reads from its environment, parsed once at its edge. */
export interface ServiceConfig {
  readonly service: string;
  readonly natsUrl: string;
  readonly databaseUrl: string;
  /** Prefix of every stream, subject and schema; empty in a normal deployment. */
  readonly namespace: string;
  readonly host: string;
  readonly port: number;
  readonly logLevel: string;
  readonly otlpEndpoint?: string;
  readonly streamReplicas: number;
  /** Events larger than this keep their data in the object store (`SPINDLE_MAX_EVENT_BYTES`). */
  readonly maxEventBytes: number;
  /** This service's own NATS credentials (subject permissions decide what it may publish). */
  readonly natsAuth?: BusAuth;
  /** TLS to NATS (`NATS_TLS_CA`, and `NATS_TLS_CERT` with `NATS_TLS_KEY` for mutual TLS); Postgres' TLS is `DATABASE_URL`'s `sslmode`. */
  readonly natsTls?: BusTls;
  /** After SIGTERM, the process exits at the latest this long later, whatever is still running. */
  readonly shutdownDeadlineMs: number;
  /**
   * How long runs are kept (`SPINDLE_RETENTION_DAYS`, default 30): the run log's max age, and the
   * clock on which every projection, payload and dead letter of a run expires.
   */
  readonly retentionMs: number;
  /** What the process masks before it writes anything down (`SPINDLE_SECRET_PATTERNS`, and the secrets it holds). */
  readonly secretMasking: SecretMaskingConfig;
}

const envSchema = z.object({
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/postgres'),
  SPINDLE_NAMESPACE: z
    .string()
    .regex(/^([a-z][a-z0-9_]{0,31})?$/, 'lower-case letters, digits and _')
    .default(''),
  HOST: z.string().default('0.0.0.0'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  SPINDLE_STREAM_REPLICAS: envInteger(1, 1, 5),
  // Below the server's 1 MiB message limit with room for the envelope and headers.
  SPINDLE_MAX_EVENT_BYTES: envInteger(256 * 1_024, 1_024, 900 * 1_024),
  NATS_USER: z.string().min(1).optional(),
  NATS_PASSWORD: z.string().optional(),
  NATS_TOKEN: z.string().min(1).optional(),
  NATS_CREDS: z.string().min(1).optional(),
  NATS_TLS_CA: z.string().min(1).optional(),
  NATS_TLS_CERT: z.string().min(1).optional(),
  NATS_TLS_KEY: z.string().min(1).optional(),
  SHUTDOWN_DEADLINE_MS: z.coerce.number().int().min(1_000).max(600_000).optional(),
  // Fractions allowed (a test's retention of seconds); at least a second, at most ten years.
  SPINDLE_RETENTION_DAYS: z.coerce
    .number()
    .min(1 / 86_400)
    .max(3_650)
    .default(30),
  /** JSON array of RE2 patterns whose matches are masked in run logs, traces and log lines. */
  SPINDLE_SECRET_PATTERNS: z.string().optional(),
});

/** Secrets a process may hold in its environment: their values are masked wherever they would be written. */
const SECRET_VARIABLES = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_COMPATIBLE_API_KEY', 'NATS_PASSWORD', 'NATS_TOKEN'];

export function parseServiceConfig(env: Env, service: string, portVariable: string, defaultPort: number): ServiceConfig {
  const e = parseEnv(envSchema, env, service);
  const port = parseEnv(z.object({ [portVariable]: envInteger(defaultPort, 0, 65_535) }), env, service)[portVariable];
  return Object.freeze({
    service,
    natsUrl: e.NATS_URL,
    databaseUrl: e.DATABASE_URL,
    namespace: e.SPINDLE_NAMESPACE,
    host: e.HOST,
    port,
    logLevel: e.LOG_LEVEL,
    otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
    streamReplicas: e.SPINDLE_STREAM_REPLICAS,
    maxEventBytes: e.SPINDLE_MAX_EVENT_BYTES,
    natsAuth: natsAuth(e),
    natsTls: natsTls(e),
    shutdownDeadlineMs: e.SHUTDOWN_DEADLINE_MS ?? 15_000,
    retentionMs: Math.round(e.SPINDLE_RETENTION_DAYS * 86_400_000),
    secretMasking: { patterns: secretPatterns(e.SPINDLE_SECRET_PATTERNS), literals: SECRET_VARIABLES.map((name) => env[name]) },
  });
}

/** `SPINDLE_SECRET_PATTERNS`, checked here so a bad pattern stops the start with the variable's name. */
function secretPatterns(json: string | undefined): string[] {
  if (json === undefined || json.trim() === '') return [];
  let patterns: unknown;
  try {
    patterns = JSON.parse(json);
  } catch (e) {
    throw new Error(`SPINDLE_SECRET_PATTERNS is not valid JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(patterns) || patterns.some((p) => typeof p !== 'string')) {
    throw new Error('SPINDLE_SECRET_PATTERNS must be a JSON array of RE2 patterns (strings)');
  }
  try {
    compileSecretPatterns(patterns as string[]);
  } catch (e) {
    throw new Error(`SPINDLE_SECRET_PATTERNS: ${(e as Error).message}`);
  }
  return patterns as string[];
}

function natsTls(e: z.infer<typeof envSchema>): BusTls | undefined {
  if (!e.NATS_TLS_CA && !e.NATS_TLS_CERT && !e.NATS_TLS_KEY) return undefined;
  if (Boolean(e.NATS_TLS_CERT) !== Boolean(e.NATS_TLS_KEY)) throw new Error('NATS_TLS_CERT and NATS_TLS_KEY go together (mutual TLS)');
  for (const [name, file] of Object.entries({ NATS_TLS_CA: e.NATS_TLS_CA, NATS_TLS_CERT: e.NATS_TLS_CERT, NATS_TLS_KEY: e.NATS_TLS_KEY })) {
    if (file && !existsSync(file)) throw new Error(`${name} names ${file}, which does not exist`);
  }
  return { caFile: e.NATS_TLS_CA, certFile: e.NATS_TLS_CERT, keyFile: e.NATS_TLS_KEY };
}

function natsAuth(e: z.infer<typeof envSchema>): BusAuth | undefined {
  if (e.NATS_CREDS) {
    try {
      return { creds: readFileSync(e.NATS_CREDS, 'utf8') };
    } catch (err) {
      throw new Error(`NATS_CREDS names ${e.NATS_CREDS}, which cannot be read: ${(err as Error).message}`);
    }
  }
  if (e.NATS_TOKEN) return { token: e.NATS_TOKEN };
  if (e.NATS_USER) return { user: e.NATS_USER, pass: e.NATS_PASSWORD ?? '' };
  return undefined;
}
