import { hostname } from 'node:os';
import { llmConfigFromEnv, type LlmConfig } from '@spindle/llm';
import { parseServiceConfig, type ServiceConfig } from '@spindle/service-kit';

export interface RunnerConfig extends ServiceConfig {
  /** Runs this process executes at once; more commands wait in the stream for another runner. */
  readonly concurrency: number;
  /** A held command is redelivered this long after the runner stops signalling progress. */
  readonly ackWaitMs: number;
  readonly runTimeoutMs: number;
  readonly runTimeoutCeilingMs: number;
  readonly maxSteps: number;
  /** On SIGTERM, how long in-flight runs may take to finish before they are aborted. */
  readonly shutdownGraceMs: number;
  readonly workerId: string;
  /** Module paths whose `functions` export registers node functions by name. */
  readonly plugins: readonly string[];
  readonly llm: LlmConfig;
  /** Executions of one run (the first plus resumes after lost runners) before it closes `interrupted`. */
  readonly maxAttempts: number;
  /** MCP servers agent nodes may use: exact commands and URL prefixes, or `*`; none when empty. */
  readonly mcpAllow: string;
}

export function parseRunnerConfig(env: Record<string, string | undefined>): RunnerConfig {
  const base = parseServiceConfig(env, 'runner', 'RUNNER_PORT', 8081);
  const int = (name: string, fallback: number, min: number) => {
    const value = Number(env[name] ?? fallback);
    if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min} (got "${env[name]}")`);
    return value;
  };
  return Object.freeze({
    ...base,
    concurrency: int('RUNNER_CONCURRENCY', 16, 1),
    ackWaitMs: int('RUNNER_ACK_WAIT_MS', 30_000, 1_000),
    runTimeoutMs: int('RUN_TIMEOUT_MS', 600_000, 1_000),
    runTimeoutCeilingMs: int('RUN_TIMEOUT_CEILING_MS', 3_600_000, 1_000),
    maxSteps: int('RUN_MAX_STEPS', 10_000, 1),
    shutdownGraceMs: int('RUNNER_SHUTDOWN_GRACE_MS', 25_000, 0),
    maxAttempts: int('RUN_MAX_ATTEMPTS', 3, 1),
    workerId: env.RUNNER_ID ?? `${hostname()}-${process.pid}`,
    plugins: (env.SPINDLE_PLUGINS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    llm: llmConfigFromEnv(env),
    mcpAllow: env.SPINDLE_MCP_ALLOW ?? '',
  });
}
