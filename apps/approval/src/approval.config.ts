import { z } from 'zod';

/** The approval service's own settings, beyond those every service reads. */
export interface ApprovalConfig {
  /** How often expired requests are timed out (`SPINDLE_REQUEST_SWEEP_MS`). */
  readonly requestSweepMs: number;
}

export const APPROVAL_CONFIG = Symbol('APPROVAL_CONFIG');

const envSchema = z.object({
  SPINDLE_REQUEST_SWEEP_MS: z.coerce.number().int().min(10).max(3_600_000).default(1_000),
});

export function parseApprovalConfig(env: Record<string, string | undefined>): ApprovalConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`invalid environment for approval: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return Object.freeze({ requestSweepMs: parsed.data.SPINDLE_REQUEST_SWEEP_MS });
}
