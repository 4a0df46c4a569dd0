import { hostname } from 'node:os';
import { parseEgressAllowList, type EgressPolicy } from '@spindle/egress';
import { llmConfigFromEnv, type LlmConfig } from '@spindle/llm';
import { parseServiceConfig, type ServiceConfig } from '@spindle/service-kit';

export interface RunnerConfig extends ServiceConfig {
  /** Runs this process holds at once (stepping or waiting); more commands wait in the stream for another runner. */
  readonly concurrency: number;
  /** Of those, runs computing at once; a run waiting on a model, a tool or the log holds no slot. */
  readonly stepSlots: number;
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
  /**
   * `SPINDLE_EGRESS_ALLOWED_HOSTS`: internal hosts, addresses and CIDR ranges the runner's outbound
   * HTTP (MCP servers, plugins' `fetch`) may reach; anything else internal is refused at connect.
   */
  readonly egress: EgressPolicy;
  /** Deliveries of one command before it goes to the dead-letter stream. */
  readonly maxDeliver: number;
  /** Not ready once fetching commands has not answered for this long. */
  readonly fetchStallMs: number;
  /** How long an append NATS does not answer is retried before the run is handed back. */
  readonly busRetryMs: number;
  /** Bytes one run's log may hold. */
  readonly maxLogBytes: number;
  /** Exported model and tool spans carry messages, answers and tool arguments (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`). */
  readonly captureGenAiContent: boolean;
}

export function parseRunnerConfig(env: Record<string, string | undefined>): RunnerConfig {
  const base = parseServiceConfig(env, 'runner', 'RUNNER_PORT', 8081);
  const int = (name: string, fallback: number, min: number) => {
    const value = Number(env[name] ?? fallback);
    if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min} (got "${env[name]}")`);
    return value;
  };
  const shutdownGraceMs = int('RUNNER_SHUTDOWN_GRACE_MS', 25_000, 0);
  return Object.freeze({
    ...base,
    // The grace period, then 2 s for runs to let go, then closing connections.
    shutdownDeadlineMs: env.SHUTDOWN_DEADLINE_MS ? base.shutdownDeadlineMs : shutdownGraceMs + 8_000,
    concurrency: int('RUNNER_CONCURRENCY', 1_000, 1),
    stepSlots: int('RUNNER_STEP_SLOTS', 16, 1),
    ackWaitMs: int('RUNNER_ACK_WAIT_MS', 30_000, 1_000),
    runTimeoutMs: int('RUN_TIMEOUT_MS', 600_000, 1_000),
    runTimeoutCeilingMs: int('RUN_TIMEOUT_CEILING_MS', 3_600_000, 1_000),
    maxSteps: int('RUN_MAX_STEPS', 10_000, 1),
    shutdownGraceMs,
    maxAttempts: int('RUN_MAX_ATTEMPTS', 3, 1),
    workerId: env.RUNNER_ID ?? `${hostname()}-${process.pid}`,
    plugins: (env.SPINDLE_PLUGINS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    llm: llmConfigFromEnv(env),
    mcpAllow: env.SPINDLE_MCP_ALLOW ?? '',
    egress: parseEgressAllowList(env.SPINDLE_EGRESS_ALLOWED_HOSTS, 'SPINDLE_EGRESS_ALLOWED_HOSTS'),
    maxDeliver: int('RUNNER_MAX_DELIVER', 20, 2),
    fetchStallMs: int('RUNNER_FETCH_STALL_MS', 30_000, 5_000),
    busRetryMs: int('SPINDLE_BUS_RETRY_MS', 300_000, 0),
    maxLogBytes: int('SPINDLE_MAX_RUN_LOG_BYTES', 64 * 1024 * 1024, 64 * 1024),
    captureGenAiContent: env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === 'true',
  });
}
