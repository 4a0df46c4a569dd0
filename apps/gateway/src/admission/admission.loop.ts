import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import type { RunAdmission } from './run-admission';

/** Admission passes besides the ones runs trigger: a slow tick, so stale commands are sent again and other gateways' changes are seen. */
export class AdmissionLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly admission: RunAdmission,
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
      await this.admission.tick();
    } catch (err) {
      this.logger.warn({ err }, 'admission pass failed; trying again');
    }
  }
}
