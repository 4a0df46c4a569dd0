import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';

/**
 * A pass besides the ones events trigger, on a slow tick: so what a missed trigger left (a stale
 * command, a thread's next run) is still done, and other gateways' changes are seen.
 */
export class PassLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly name: string,
    private readonly pass: () => Promise<void>,
    private readonly logger: Logger,
    private readonly everyMs = 1_000,
  ) {}

  onApplicationBootstrap() {
    this.timer = setInterval(() => void this.tick(), this.everyMs);
    this.timer.unref();
  }

  onApplicationShutdown() {
    clearInterval(this.timer);
  }

  private async tick(): Promise<void> {
    try {
      await this.pass();
    } catch (err) {
      this.logger.warn({ err }, `${this.name} pass failed; trying again`);
    }
  }
}
