import { hostname } from 'node:os';
import { parseEgressAllowList, type EgressPolicy } from '@spindle/egress';
import { llmConfigFromEnv, type LlmConfig } from '@spindle/llm';
import { envBoolean, envInteger, parseEnv, type Env } from '@spindle/contracts';
import { parseServiceConfig, type ServiceConfig } from '@spindle/service-kit';
import { z } from 'zod';

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

/** The runner's own variables; names and defaults are the deployment's contract (deploy/, compose). */
const envSchema = z.object({
  RUNNER_SHUTDOWN_GRACE_MS: envInteger(25_000, 0),
  RUNNER_CONCURRENCY: envInteger(1_000, 1),
  RUNNER_STEP_SLOTS: envInteger(16, 1),
  RUNNER_ACK_WAIT_MS: envInteger(30_000, 1_000),
  RUN_TIMEOUT_MS: envInteger(600_000, 1_000),
  RUN_TIMEOUT_CEILING_MS: envInteger(3_600_000, 1_000),
  RUN_MAX_STEPS: envInteger(10_000, 1),
  RUN_MAX_ATTEMPTS: envInteger(3, 1),
  RUNNER_MAX_DELIVER: envInteger(20, 2),
  RUNNER_FETCH_STALL_MS: envInteger(30_000, 5_000),
  SPINDLE_BUS_RETRY_MS: envInteger(300_000, 0),
  SPINDLE_MAX_RUN_LOG_BYTES: envInteger(64 * 1024 * 1024, 64 * 1024),
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: envBoolean(false),
  RUNNER_ID: z.string().optional(),
  SPINDLE_PLUGINS: z.string().default(''),
  SPINDLE_MCP_ALLOW: z.string().default(''),
});

export function parseRunnerConfig(env: Env): RunnerConfig {
  const base = parseServiceConfig(env, 'runner', 'RUNNER_PORT', 8081);
  const e = parseEnv(envSchema, env, 'runner');
  return Object.freeze({
    ...base,
    // The grace period, then 2 s for runs to let go, then closing connections.
    shutdownDeadlineMs: env.SHUTDOWN_DEADLINE_MS ? base.shutdownDeadlineMs : e.RUNNER_SHUTDOWN_GRACE_MS + 8_000,
    concurrency: e.RUNNER_CONCURRENCY,
    stepSlots: e.RUNNER_STEP_SLOTS,
    ackWaitMs: e.RUNNER_ACK_WAIT_MS,
    runTimeoutMs: e.RUN_TIMEOUT_MS,
    runTimeoutCeilingMs: e.RUN_TIMEOUT_CEILING_MS,
    maxSteps: e.RUN_MAX_STEPS,
    shutdownGraceMs: e.RUNNER_SHUTDOWN_GRACE_MS,
    maxAttempts: e.RUN_MAX_ATTEMPTS,
    workerId: e.RUNNER_ID ?? `${hostname()}-${process.pid}`,
    plugins: e.SPINDLE_PLUGINS.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    llm: llmConfigFromEnv(env),
    mcpAllow: e.SPINDLE_MCP_ALLOW,
    egress: parseEgressAllowList(env.SPINDLE_EGRESS_ALLOWED_HOSTS, 'SPINDLE_EGRESS_ALLOWED_HOSTS'),
    maxDeliver: e.RUNNER_MAX_DELIVER,
    fetchStallMs: e.RUNNER_FETCH_STALL_MS,
    busRetryMs: e.SPINDLE_BUS_RETRY_MS,
    maxLogBytes: e.SPINDLE_MAX_RUN_LOG_BYTES,
    captureGenAiContent: e.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT,
  });
}
