import { parseControlPlaneSettings, type ControlPlaneSettings } from '@spindle/control-plane';
import type { Env } from '@spindle/contracts';
import { parseServiceConfig, type ServiceConfig } from '@spindle/service-kit';

/** The dispatcher reads what every service reads and the control plane's settings, shared with the gateway. */
export interface DispatcherConfig extends ServiceConfig, ControlPlaneSettings {}

export function parseDispatcherConfig(env: Env): DispatcherConfig {
  return Object.freeze({
    ...parseServiceConfig(env, 'dispatcher', 'DISPATCHER_PORT', 8085),
    ...parseControlPlaneSettings(env, 'dispatcher'),
  });
}
