import { parseControlPlaneSettings, type ControlPlaneSettings } from '@spindle/control-plane';
import type { Env } from '@spindle/contracts';
import { llmConfigFromEnv, type LlmConfig } from '@spindle/llm';
import { parseServiceConfig, type ServiceConfig } from '@spindle/service-kit';

/** The dispatcher reads what every service reads and the control plane's settings, shared with the gateway. */
export interface DispatcherConfig extends ServiceConfig, ControlPlaneSettings {
  /** The embedding models' providers (ingestion and search embed through them). */
  readonly llm: LlmConfig;
}

export function parseDispatcherConfig(env: Env): DispatcherConfig {
  return Object.freeze({
    ...parseServiceConfig(env, 'dispatcher', 'DISPATCHER_PORT', 8085),
    ...parseControlPlaneSettings(env, 'dispatcher'),
    llm: llmConfigFromEnv(env, 'dispatcher'),
  });
}
