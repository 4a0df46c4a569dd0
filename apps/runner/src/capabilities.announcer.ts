import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { announceCapabilities, withdrawCapabilities, type Bus } from '@spindle/bus';
import { BUS, LOGGER, PeriodicLoop, READINESS, type ReadinessCheck } from '@spindle/service-kit';
import type { Logger } from 'pino';
import type { PluginCapabilities } from './plugins/capabilities-of';
import type { RunnerConfig } from './runner.config';
import { RUNNER_CAPABILITIES, RUNNER_CONFIG } from './runner.tokens';

/** How often a runner says again what it can run; an entry three times older has expired (a runner that died). */
export const ANNOUNCE_EVERY_MS = 10_000;
export const ANNOUNCEMENT_MAX_AGE_MS = 3 * ANNOUNCE_EVERY_MS;

/**
 * Puts this runner's functions, tools and run-timeout ceiling into the capabilities bucket before
 * it reports ready, again every `ANNOUNCE_EVERY_MS`, and takes them out when it stops: the
 * gateway checks saved workflows against what the live runners announce.
 */
@Injectable()
export class CapabilitiesAnnouncer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly startedAt = new Date().toISOString();
  private announced = false;
  private readonly loop: PeriodicLoop;
  private readonly options = { maxAgeMs: ANNOUNCEMENT_MAX_AGE_MS };

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(RUNNER_CONFIG) private readonly config: RunnerConfig,
    @Inject(RUNNER_CAPABILITIES) private readonly capabilities: PluginCapabilities,
    @Inject(READINESS) readiness: ReadinessCheck[],
  ) {
    readiness.push({ name: 'capabilities', check: () => this.checkAnnounced() });
    this.loop = new PeriodicLoop({ name: 'capability announcement', everyMs: ANNOUNCE_EVERY_MS, pass: () => this.announce(), logger });
  }

  async onApplicationBootstrap() {
    // The first announcement before the port listens; one that fails is tried again by the loop, and readiness waits for it.
    await this.loop.tick();
    this.loop.onApplicationBootstrap();
  }

  async beforeApplicationShutdown() {
    await this.loop.onModuleDestroy();
    await withdrawCapabilities(this.bus, this.config.workerId, this.options).catch((err: unknown) =>
      this.logger.warn({ err }, 'could not withdraw the runner’s capabilities; they expire on their own'),
    );
  }

  private async announce(): Promise<void> {
    await announceCapabilities(
      this.bus,
      {
        runnerId: this.config.workerId,
        startedAt: this.startedAt,
        announcedAt: new Date().toISOString(),
        runTimeoutCeilingMs: this.config.runTimeoutCeilingMs,
        ...this.capabilities,
      },
      { ...this.options, replicas: this.config.streamReplicas },
    );
    this.announced = true;
  }

  private async checkAnnounced(): Promise<void> {
    if (!this.announced) throw new Error('the runner has not announced its capabilities yet');
  }
}
