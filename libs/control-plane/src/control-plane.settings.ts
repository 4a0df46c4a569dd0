import {
  envBoolean,
  envInteger,
  envOptional,
  envPositive,
  isSniffableMediaType,
  parseEnv,
  SNIFFABLE_MEDIA_TYPES,
  type Env,
} from '@spindle/contracts';
import { parseEgressAllowList, type EgressPolicy } from '@spindle/egress';
import { z } from 'zod';
import type { QuotaDefaults } from './admission/quota-defaults';

export interface WebhookSettings {
  /** `SPINDLE_WEBHOOK_ALLOW_HTTP=true`: http targets too (development). */
  readonly allowHttp: boolean;
  /** `SPINDLE_WEBHOOK_ALLOWED_HOSTS`: internal hosts and networks a webhook may still reach (names, addresses, CIDR ranges). */
  readonly egress: EgressPolicy;
  readonly retryBaseMs: number;
  readonly retryForMs: number;
  readonly timeoutMs: number;
}

export interface FileSettings {
  /** `SPINDLE_MAX_FILE_BYTES`: the largest upload (20 MiB). */
  readonly maxBytes: number;
  /** `SPINDLE_FILE_MEDIA_TYPES`: the media types an upload may be (comma-separated; default every type the sniffer knows). */
  readonly mediaTypes: ReadonlySet<string>;
  /** `SPINDLE_UNREFERENCED_FILE_HOURS`: how long a file no run refers to is kept after its last use (24). */
  readonly unreferencedMs: number;
}

/**
 * What the gateway (on the request path) and the dispatcher (in the background) must read alike:
 * one parser, so the two cannot disagree on a tenant's default limit or on where a webhook may go.
 */
export interface ControlPlaneSettings {
  readonly quotas: QuotaDefaults;
  readonly webhooks: WebhookSettings;
  /** How long a read waits for a projection to apply a run's event (`PROJECTION_WAIT_MS`). */
  readonly projectionWaitMs: number;
  readonly idempotencyTtlHours: number;
  readonly files: FileSettings;
  /** The largest document a knowledge base ingests (`SPINDLE_MAX_DOCUMENT_BYTES`, default 10 MiB). */
  readonly maxDocumentBytes: number;
}

const envSchema = z.object({
  PROJECTION_WAIT_MS: envPositive(3_000),
  IDEMPOTENCY_TTL_HOURS: envPositive(24),
  SPINDLE_TENANT_MAX_RUNNING: envInteger(100, 1),
  SPINDLE_TENANT_STARTS_PER_MINUTE: envInteger(600, 1),
  SPINDLE_TENANT_DAILY_TOKENS: envOptional(z.coerce.number().int().positive()).transform((v) => v ?? null),
  SPINDLE_TENANT_DAILY_COST_USD: envOptional(z.coerce.number().positive()).transform((v) => v ?? null),
  SPINDLE_DISPATCH_WINDOW: envInteger(16, 1),
  SPINDLE_WEBHOOK_ALLOW_HTTP: envBoolean(false),
  SPINDLE_WEBHOOK_RETRY_BASE_MS: envInteger(5_000, 1),
  SPINDLE_WEBHOOK_RETRY_FOR_MS: envInteger(86_400_000, 1),
  SPINDLE_WEBHOOK_TIMEOUT_MS: envInteger(10_000, 1),
  SPINDLE_MAX_FILE_BYTES: envInteger(20 * 1_048_576, 1, 1_073_741_824),
  SPINDLE_FILE_MEDIA_TYPES: envOptional(
    z
      .string()
      .transform((text) =>
        text
          .split(',')
          .map((t) => t.trim().toLowerCase())
          .filter(Boolean),
      )
      .refine((types) => types.length > 0 && types.every(isSniffableMediaType), {
        message: `a comma-separated list of ${SNIFFABLE_MEDIA_TYPES.join(', ')}`,
      }),
  ),
  SPINDLE_UNREFERENCED_FILE_HOURS: z.coerce.number().nonnegative().max(100_000).default(24),
  SPINDLE_MAX_DOCUMENT_BYTES: envInteger(10 * 1024 * 1024, 1),
});

/** `service` names the process in the error that refuses a bad value. */
export function parseControlPlaneSettings(env: Env, service: string): ControlPlaneSettings {
  const e = parseEnv(envSchema, env, service);
  return Object.freeze({
    quotas: Object.freeze({
      maxRunning: e.SPINDLE_TENANT_MAX_RUNNING,
      startsPerMinute: e.SPINDLE_TENANT_STARTS_PER_MINUTE,
      dailyTokenBudget: e.SPINDLE_TENANT_DAILY_TOKENS,
      dailyCostBudgetUsd: e.SPINDLE_TENANT_DAILY_COST_USD,
      dispatchWindow: e.SPINDLE_DISPATCH_WINDOW,
    }),
    webhooks: Object.freeze({
      allowHttp: e.SPINDLE_WEBHOOK_ALLOW_HTTP,
      egress: parseEgressAllowList(env.SPINDLE_WEBHOOK_ALLOWED_HOSTS, 'SPINDLE_WEBHOOK_ALLOWED_HOSTS'),
      retryBaseMs: e.SPINDLE_WEBHOOK_RETRY_BASE_MS,
      retryForMs: e.SPINDLE_WEBHOOK_RETRY_FOR_MS,
      timeoutMs: e.SPINDLE_WEBHOOK_TIMEOUT_MS,
    }),
    projectionWaitMs: e.PROJECTION_WAIT_MS,
    idempotencyTtlHours: e.IDEMPOTENCY_TTL_HOURS,
    files: Object.freeze({
      maxBytes: e.SPINDLE_MAX_FILE_BYTES,
      mediaTypes: new Set<string>(e.SPINDLE_FILE_MEDIA_TYPES ?? SNIFFABLE_MEDIA_TYPES),
      unreferencedMs: Math.round(e.SPINDLE_UNREFERENCED_FILE_HOURS * 3_600_000),
    }),
    maxDocumentBytes: e.SPINDLE_MAX_DOCUMENT_BYTES,
  });
}
