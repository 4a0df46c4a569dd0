import { envInteger, parseEnv, type Env } from '@spindle/contracts';
import { z } from 'zod';

/** The approval service's own settings, beyond those every service reads. */
export interface ApprovalConfig {
  /** How often expired requests are timed out (`SPINDLE_REQUEST_SWEEP_MS`). */
  readonly requestSweepMs: number;
}

export const APPROVAL_CONFIG = Symbol('APPROVAL_CONFIG');

const envSchema = z.object({
  SPINDLE_REQUEST_SWEEP_MS: envInteger(1_000, 10, 3_600_000),
});

export function parseApprovalConfig(env: Env): ApprovalConfig {
  return Object.freeze({ requestSweepMs: parseEnv(envSchema, env, 'approval').SPINDLE_REQUEST_SWEEP_MS });
}
