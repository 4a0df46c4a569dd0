import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { propagation, type Context } from '@opentelemetry/api';
import {
  deadLetter,
  ensureDurable,
  isBusFault,
  onReconnect,
  parseMessageJson,
  runTraceHeaders,
  type Bus,
  type Consumer,
  type JsMsg,
} from '@spindle/bus';
import { describeIssues, runCommandSchema, SpindleError, zodFieldIssues, type RunCommand } from '@spindle/contracts';
import { extractTraceContext } from '@spindle/telemetry';
import { BUS, LOGGER, READINESS, type ReadinessCheck } from '@spindle/service-kit';
import type { Logger } from 'pino';
import { commandRetryDelayMs } from './command-retry';
import { executeRunCommand, failAbandonedRun, type CommandResult, type RunExecutorDeps } from './run-executor';
import { RUN_EXECUTOR_DEPS, RUNNER_CONFIG } from './runner.tokens';
import type { RunnerConfig } from './runner.config';

/** The most commands one pull request takes (fewer when the runner has fewer free places). */
const COMMANDS_PER_FETCH = 16;

/**
 * The runners' shared durable pull consumer on `run.cmd.*`. Each runner takes at most
 * `concurrency` commands, holds each unacknowledged while its run executes (signalling
 * `working()`), and acknowledges when the run is terminal. A runner that dies leaves its
 * commands to be redelivered after the ack wait.
 *
 * A command is delivered at most `maxDeliver` times; a failed one comes back after a growing
 * delay, and one that cannot be handled (not a command, a run without a log, still failing at
 * its last delivery) goes to the dead-letter stream with its reason, never round and round.
 */
@Injectable()
export class RunCommandsConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  /** Stops fetching new commands. */
  private readonly stopping = new AbortController();
  /** Aborts runs still executing when the shutdown grace period is over. */
  private readonly abortRuns = new AbortController();
  private loop?: Promise<void>;
  private readonly inFlight = new Set<Promise<void>>();
  /** The command each run this runner executes came with (its latest delivery), and when it is done. */
  private readonly executing = new Map<string, { msg: JsMsg; done: Promise<void> }>();
  /** When a fetch last came back from the server (readiness: a runner whose bus is broken is not ready). */
  private lastFetchAt = Date.now();
  private stopReconnectWatch?: () => void;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(RUNNER_CONFIG) private readonly config: RunnerConfig,
    @Inject(RUN_EXECUTOR_DEPS) private readonly deps: RunExecutorDeps,
    @Inject(READINESS) readiness: ReadinessCheck[],
  ) {
    readiness.push({ name: 'commands', check: () => this.checkFetching() });
    deps.metrics?.countHeld(() => this.inFlight.size);
  }

  onApplicationBootstrap() {
    this.loop = this.pull();
    // After a reconnect, tell NATS at once that every held command is still being worked on.
    this.stopReconnectWatch = onReconnect(this.bus, () => {
      for (const holder of this.executing.values()) holder.msg.working();
    });
  }

  /** Fails when fetching commands has not worked for a while. */
  private async checkFetching(): Promise<void> {
    const idleMs = Date.now() - this.lastFetchAt;
    if (idleMs > this.config.fetchStallMs) throw new Error(`no answer from the command stream for ${Math.round(idleMs / 1_000)} s`);
  }

  /**
   * SIGTERM: stop fetching; in-flight runs stop at their next checkpoint and are handed back
   * (`run.yielded` and a fresh command). A run still mid-step when the grace period is over is
   * abandoned where it is; another runner resumes it from the log.
   */
  async onApplicationShutdown() {
    this.stopping.abort(new SpindleError('interrupted', 'runner draining'));
    this.stopReconnectWatch?.();
    const finished = Promise.allSettled([this.loop, ...this.inFlight]);
    const grace = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), this.config.shutdownGraceMs).unref());
    if ((await Promise.race([finished, grace])) === 'timeout') {
      this.logger.warn({ runs: this.inFlight.size }, 'shutdown grace period over; handing back runs still mid-step');
      this.abortRuns.abort(new SpindleError('run_lost', 'the runner shut down before the run reached a checkpoint'));
      // Bounded too: a run stuck in code that ignores its signal must not keep the process alive.
      await Promise.race([finished, new Promise((r) => setTimeout(r, 2_000).unref())]);
    }
  }

  /**
   * Takes commands in batches of up to the free places (at most `COMMANDS_PER_FETCH`): one pull
   * request brings every command waiting, instead of one request and one round trip per command
   * while the runs already taken keep the event loop busy (twenty starts arriving together sat
   * in line behind each other's pulls). The cap keeps one runner from taking a queue other
   * runners could start sooner.
   */
  private async pull(): Promise<void> {
    let consumer: Consumer | undefined;
    while (!this.stopping.signal.aborted) {
      const free = this.config.concurrency - this.inFlight.size;
      if (free <= 0) {
        await Promise.race([...this.inFlight, aborted(this.stopping.signal)]);
        continue;
      }
      try {
        consumer ??= await this.openConsumer();
        const batch = await consumer.fetch({ max_messages: Math.min(free, COMMANDS_PER_FETCH), expires: 2_000 });
        const stop = () => batch.stop();
        this.stopping.signal.addEventListener('abort', stop, { once: true });
        try {
          for await (const msg of batch) {
            this.lastFetchAt = Date.now();
            this.take(msg);
          }
        } finally {
          this.stopping.signal.removeEventListener('abort', stop);
        }
        this.lastFetchAt = Date.now();
      } catch (e) {
        if (this.stopping.signal.aborted) return;
        this.logger.warn({ err: e }, 'fetching run commands failed; retrying');
        // The consumer may have been recreated (NATS restarted with a fresh store): look it up again.
        consumer = undefined;
        await Promise.race([new Promise((r) => setTimeout(r, 500)), aborted(this.stopping.signal)]);
      }
    }
  }

  /** Starts handling a command; one that arrives while the runner drains goes straight back. */
  private take(msg: JsMsg): void {
    if (this.stopping.signal.aborted) return msg.nak();
    const task = this.handle(msg).finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
  }

  private openConsumer(): Promise<Consumer> {
    const { names } = this.bus;
    return ensureDurable(this.bus, {
      stream: names.commandsStream,
      durable: names.durables.runners,
      filterSubject: names.commandsWildcard,
      ackWaitMs: this.config.ackWaitMs,
      maxDeliver: this.config.maxDeliver,
      maxAckPending: 100_000,
    });
  }

  private async handle(msg: JsMsg): Promise<void> {
    const command = this.parse(msg);
    if (typeof command === 'string') return this.deadLetter(msg, command, 'invalid_command');
    const current = this.executing.get(command.runId);
    if (current?.msg.seq === msg.seq) {
      // Redelivered to the runner that is running it (its progress signals were lost, e.g. while
      // NATS restarted): take the new delivery over, never start a second execution of the run.
      current.msg = msg;
      msg.working();
      this.logger.info(
        { runId: command.runId, delivery: msg.info.deliveryCount },
        'command redelivered to the runner executing it; carrying on',
      );
      return;
    }
    // Another command of a run this runner executes (a resume right after it waited): after it.
    if (current) await current.done;
    let finish!: () => void;
    const holder = { msg, done: new Promise<void>((resolve) => (finish = resolve)) };
    this.executing.set(command.runId, holder);
    try {
      await this.execute(holder, command);
    } finally {
      this.executing.delete(command.runId);
      finish();
    }
  }

  private async execute(holder: { msg: JsMsg }, command: RunCommand): Promise<void> {
    const heartbeat = setInterval(() => holder.msg.working(), Math.max(1_000, Math.floor(this.config.ackWaitMs / 3)));
    const msg = holder.msg;
    let result: CommandResult;
    let gaveUp = false;
    try {
      const delivery = { attempt: msg.info.deliveryCount, parent: await this.traceOf(msg, command), drain: this.stopping.signal };
      result = await executeRunCommand(this.deps, command.runId, delivery, this.abortRuns.signal);
    } catch (e) {
      const fault = isBusFault(e);
      this.logger[fault ? 'warn' : 'error'](
        { err: e, runId: command.runId, delivery: msg.info.deliveryCount },
        fault ? 'NATS did not answer; the command comes back later' : 'run command failed',
      );
      const reason = `failed at delivery ${msg.info.deliveryCount}: ${(e as Error)?.message ?? String(e)}`;
      // Not the data's fault as far as anyone can tell: it gets its remaining deliveries first.
      result = fault || msg.info.deliveryCount < this.config.maxDeliver ? 'bus_unavailable' : { deadLetter: reason };
      gaveUp = typeof result === 'object';
      if (gaveUp) await this.closeRun(command.runId, reason);
    } finally {
      clearInterval(heartbeat);
    }
    await this.settle(holder.msg, command, result, gaveUp ? 'retries_exhausted' : 'unrunnable');
  }

  /**
   * The command's trace context; a start sent without one (the admission sending a run its log's
   * projection queued before the gateway did) takes the one the run was queued in. Only where
   * tracing is on: without a propagator no command carries one, and no log is read for it.
   */
  private async traceOf(msg: JsMsg, command: RunCommand): Promise<Context> {
    const tracing = propagation.fields().includes('traceparent');
    if (!tracing || command.type !== 'run.start' || msg.headers?.has('traceparent')) return extractTraceContext(msg.headers);
    const queuedIn = await runTraceHeaders(this.deps.bus, command.runId).catch(() => undefined);
    return extractTraceContext(queuedIn ?? msg.headers);
  }

  private async settle(msg: JsMsg, command: RunCommand, result: CommandResult, whyDead: CommandDeadLetterKind): Promise<void> {
    if (typeof result === 'object') return this.deadLetter(msg, result.deadLetter, whyDead);
    switch (result) {
      case 'done':
      case 'ignored':
      case 'requeued':
        return msg.ack();
      case 'lost':
        // The runner that owns the run holds (and acknowledges) this command.
        return;
      case 'handed_back':
        return msg.nak();
      case 'bus_unavailable':
        if (msg.info.deliveryCount >= this.config.maxDeliver) {
          return this.deadLetter(
            msg,
            `run ${command.runId}: still failing after ${msg.info.deliveryCount} deliveries`,
            'retries_exhausted',
          );
        }
        return msg.nak(commandRetryDelayMs(msg.info.deliveryCount));
    }
  }

  private async closeRun(runId: string, reason: string): Promise<void> {
    const closed = await failAbandonedRun(
      this.deps,
      runId,
      `the run could not be executed (${reason}); its command is in the dead-letter stream`,
    ).catch((err: unknown) => {
      this.logger.error({ err, runId }, 'could not close a run whose command is given up on');
      return false;
    });
    if (closed) this.logger.warn({ runId }, 'run failed: its command was given up on');
  }

  private parse(msg: JsMsg): RunCommand | string {
    const json = parseMessageJson(msg.data);
    if (!json.ok) return 'not JSON';
    const command = runCommandSchema.safeParse(json.value);
    return command.success ? command.data : describeIssues(zodFieldIssues(command.error.issues, { whole: '(root)' }));
  }

  private async deadLetter(msg: JsMsg, reason: string, kind: CommandDeadLetterKind): Promise<void> {
    this.logger.warn({ subject: msg.subject, streamSeq: msg.seq, reason }, 'run command dead-lettered');
    try {
      await deadLetter(this.bus, 'runner', msg, reason);
      this.deps.metrics?.deadLettered(kind);
    } catch (err) {
      this.logger.error({ err }, 'dead-lettering failed; leaving the command for redelivery');
      msg.nak(commandRetryDelayMs(msg.info.deliveryCount));
    }
  }
}

/** Why a command went to the dead-letter stream: the `kind` of `spindle_runner_dead_letters_total`. */
type CommandDeadLetterKind = 'invalid_command' | 'unrunnable' | 'retries_exhausted';

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}
