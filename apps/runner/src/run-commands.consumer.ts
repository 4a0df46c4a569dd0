import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { JsMsg } from '@nats-io/jetstream';
import { deadLetter, ensureDurable, type Bus } from '@spindle/bus';
import { runCommandSchema, SpindleError } from '@spindle/contracts';
import { extractTraceContext } from '@spindle/telemetry';
import { BUS, LOGGER } from '@spindle/service-kit';
import type { Logger } from 'pino';
import { ZodError } from 'zod';
import { executeRunCommand, type RunExecutorDeps } from './run-executor';
import { RUN_EXECUTOR_DEPS, RUNNER_CONFIG } from './runner.tokens';
import type { RunnerConfig } from './runner.config';

/**
 * The runners' shared durable pull consumer on `run.cmd.*`. Each runner takes at most
 * `concurrency` commands, holds each unacknowledged while its run executes (signalling
 * `working()`), and acknowledges when the run is terminal. A runner that dies leaves its
 * commands to be redelivered after the ack wait.
 */
@Injectable()
export class RunCommandsConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  /** Stops fetching new commands. */
  private readonly stopping = new AbortController();
  /** Aborts runs still executing when the shutdown grace period is over. */
  private readonly abortRuns = new AbortController();
  private loop?: Promise<void>;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(RUNNER_CONFIG) private readonly config: RunnerConfig,
    @Inject(RUN_EXECUTOR_DEPS) private readonly deps: RunExecutorDeps,
  ) {}

  onApplicationBootstrap() {
    this.loop = this.pull();
  }

  /**
   * SIGTERM: stop fetching; in-flight runs stop at their next checkpoint and are handed back
   * (`run.yielded`, the command goes back to the queue at once). A run still mid-step when the
   * grace period is over is abandoned where it is; another runner resumes it from the log.
   */
  async onApplicationShutdown() {
    this.stopping.abort(new SpindleError('interrupted', 'runner draining'));
    await this.loop;
    const finished = Promise.allSettled([...this.inFlight]);
    const grace = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), this.config.shutdownGraceMs).unref());
    if ((await Promise.race([finished, grace])) === 'timeout') {
      this.logger.warn({ runs: this.inFlight.size }, 'shutdown grace period over; handing back runs still mid-step');
      this.abortRuns.abort(new SpindleError('run_lost', 'the runner shut down before the run reached a checkpoint'));
      await finished;
    }
  }

  private async pull(): Promise<void> {
    const { names } = this.bus;
    const consumer = await ensureDurable(this.bus, {
      stream: names.commandsStream,
      durable: names.durables.runners,
      filterSubject: names.commandsWildcard,
      ackWaitMs: this.config.ackWaitMs,
      maxAckPending: 100_000,
    });
    while (!this.stopping.signal.aborted) {
      if (this.inFlight.size >= this.config.concurrency) {
        await Promise.race(this.inFlight);
        continue;
      }
      let msg: JsMsg | null = null;
      try {
        msg = await consumer.next({ expires: 2_000 });
      } catch (e) {
        if (this.stopping.signal.aborted) return;
        this.logger.warn({ err: e }, 'fetching run commands failed; retrying');
        await new Promise((r) => setTimeout(r, 500));
      }
      if (!msg) continue;
      const task = this.handle(msg).finally(() => this.inFlight.delete(task));
      this.inFlight.add(task);
    }
  }

  private async handle(msg: JsMsg): Promise<void> {
    let command;
    try {
      command = runCommandSchema.parse(msg.json());
    } catch (e) {
      const reason = e instanceof ZodError ? e.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') : 'not JSON';
      this.logger.warn({ subject: msg.subject, reason }, 'invalid run command; dead-lettered');
      await deadLetter(this.bus, 'runner', msg, reason).catch((dlqError) => this.logger.error({ err: dlqError }, 'dead-lettering failed; leaving the command for redelivery'));
      return;
    }
    const heartbeat = setInterval(() => msg.working(), Math.max(1_000, Math.floor(this.config.ackWaitMs / 3)));
    try {
      const delivery = { attempt: msg.info.deliveryCount, parent: extractTraceContext(msg.headers), drain: this.stopping.signal };
      const result = await executeRunCommand(this.deps, command.runId, delivery, this.abortRuns.signal);
      if (result === 'handed_back') msg.nak();
      else if (result !== 'lost') msg.ack();
    } catch (e) {
      this.logger.error({ err: e, runId: command.runId }, 'run command failed; it will be redelivered');
      msg.nak(5_000);
    } finally {
      clearInterval(heartbeat);
    }
  }
}
