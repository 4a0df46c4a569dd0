export const RUNNER_CONFIG = Symbol('RUNNER_CONFIG');
export const RUN_EXECUTOR_DEPS = Symbol('RUN_EXECUTOR_DEPS');
/** The loaded plugins and the egress guard their `fetch` goes through (one guard for the whole runner). */
export const RUNNER_PLUGINS = Symbol('RUNNER_PLUGINS');
/** What the runner announces it can run. */
export const RUNNER_CAPABILITIES = Symbol('RUNNER_CAPABILITIES');
