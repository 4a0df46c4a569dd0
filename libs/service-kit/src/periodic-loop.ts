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
 * The one periodic loop of the services: a pass every `everyMs` and whenever something calls
 * `tick` (an event that may have made work), one at a time: a tick during a pass asks for one more
 * after it (the pass may have read before the change that ticked). The timer never keeps the
 * process alive, and the pass under way ends before the module's resources (its database) close.
 */
export class PeriodicLoop implements OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(private readonly opts: PeriodicLoopOptions) {}

  onApplicationBootstrap(): void {
    if (this.opts.passAtStart) this.tick();
    this.timer = setInterval(() => this.tick(), this.opts.everyMs).unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** Starts a pass, or asks for one more after the pass under way; resolves when the passes end. Never rejects. */
  tick(): Promise<void> {
    if (this.running) {
      this.again = !this.stopped;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.opts.pass();
        } catch (err) {
          this.opts.logger.warn({ err }, `${this.opts.name} pass failed; trying again`);
        }
      } while (this.again);
    })().finally(() => (this.running = undefined));
    return this.running;
  }
}
