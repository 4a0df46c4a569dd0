import { parseEnv, type Env } from '@spindle/contracts';
import { z } from 'zod';

/** The checkpoint service's own settings, beside the `ServiceConfig` every service reads. */
export interface CheckpointSettings {
  /** How long checkpoints and node results are kept (`SPINDLE_CHECKPOINT_TTL_HOURS`, default a week). */
  readonly ttlHours: number;
}

export const CHECKPOINT_SETTINGS = Symbol('CHECKPOINT_SETTINGS');

const envSchema = z.object({
  // Fractions allowed (0.5 = 30 min); capped at ten years so the interval arithmetic stays sane.
  SPINDLE_CHECKPOINT_TTL_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 365 * 10)
    .default(168),
});

export function parseCheckpointSettings(env: Env): CheckpointSettings {
  return Object.freeze({ ttlHours: parseEnv(envSchema, env, 'checkpoint').SPINDLE_CHECKPOINT_TTL_HOURS });
}
