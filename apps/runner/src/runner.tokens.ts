export const RUNNER_CONFIG = Symbol('RUNNER_CONFIG');
export const RUN_EXECUTOR_DEPS = Symbol('RUN_EXECUTOR_DEPS');
