import { subscribeRunControl, type Bus } from '@spindle/bus';
import { RunCanceledError, SpindleError } from '@spindle/contracts';
import type { Logger } from 'pino';

export interface RunSignal {
  readonly signal: AbortSignal;
  /** The definition's `runTimeoutMs`, as asked. */
  readonly asked: unknown;
  /** The definition asked for more than the ceiling allows. */
  readonly clamped: boolean;
  dispose(): void;
}

export interface RunSignalOptions {
  bus: Bus;
  runId: string;
  /** The runner's default run timeout, and the most a definition may ask for. */
  runTimeoutMs: number;
  runTimeoutCeilingMs: number;
  /** Time earlier executions of the run already worked on it. */
  activeMsBefore: number;
  /** The runner shutting down (past its grace period). */
  shutdown: AbortSignal;
  logger: Logger;
}

/**
 * The run's abort signal: its timeout (the definition's `runTimeoutMs`, else the runner's
 * default, never beyond the ceiling), a cancel on the run's control channel, or the runner
 * shutting down. Listening starts before `run.started` is appended, so a cancel sent after it
 * was seen always arrives.
 */
export function runSignal(definition: unknown, opts: RunSignalOptions): RunSignal {
  const asked = (definition as { runTimeoutMs?: unknown })?.runTimeoutMs;
  const wanted = typeof asked === 'number' && asked > 0 ? asked : opts.runTimeoutMs;
  const timeoutMs = Math.min(wanted, opts.runTimeoutCeilingMs);
  // Time spent waiting for a person does not count: only time a runner worked on it.
  const remainingMs = Math.max(1, timeoutMs - opts.activeMsBefore);
  const controller = new AbortController();
  const stop = (reason: SpindleError) => !controller.signal.aborted && controller.abort(reason);
  const timer = setTimeout(() => stop(new SpindleError('run_timeout', `run exceeded its ${timeoutMs} ms timeout`)), remainingMs);
  // Past the shutdown grace period the run is handed back mid-step: nothing more is appended.
  const onShutdown = () => stop(new SpindleError('run_lost', 'handed back: the runner shut down before the run reached a checkpoint'));
  opts.shutdown.addEventListener('abort', onShutdown, { once: true });
  const control = subscribeRunControl(opts.bus, opts.runId, {
    onMessage: (c) => stop(new RunCanceledError(c.reason ? `canceled: ${c.reason}` : 'canceled by request', c.canceledBy)),
    onInvalid: (subject, reason) => opts.logger.warn({ subject, reason }, 'ignoring an invalid run control message'),
  });
  return {
    signal: controller.signal,
    asked,
    clamped: wanted > opts.runTimeoutCeilingMs,
    dispose() {
      clearTimeout(timer);
      opts.shutdown.removeEventListener('abort', onShutdown);
      control.close();
    },
  };
}
