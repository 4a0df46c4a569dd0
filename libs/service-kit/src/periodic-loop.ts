import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { Logger } from '@spindle/telemetry';

export interface PeriodicLoopOptions {
  /** Names the loop in its logs. */
  name: string;
  everyMs: number;
  /** A pass; a pass that throws is logged, and the next tick tries again. */
  pass: () => Promise<unknown>;
  logger: Logger;
  /** A first pass at bootstrap (not awaited: a long one must not hold up readiness). */
  passAtStart?: boolean;
}

/**
 * The one periodic loop of the services: a pass every `everyMs`, one at a time (a tick during a
 * pass is skipped, not queued), the timer never keeping the process alive, and the pass under way
 * finished before the module's resources (its database) close.
 */
export class PeriodicLoop implements OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(private readonly opts: PeriodicLoopOptions) {}

  onApplicationBootstrap(): void {
    if (this.opts.passAtStart) this.tick();
    this.timer = setInterval(() => this.tick(), this.opts.everyMs).unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Starts a pass unless one is under way; resolves when the pass under way ends. */
  tick(): Promise<void> {
    this.running ??= this.opts
      .pass()
      .then(() => undefined)
      .catch((err: unknown) => this.opts.logger.warn({ err }, `${this.opts.name} pass failed; trying again`))
      .finally(() => (this.running = undefined));
    return this.running;
  }
}
