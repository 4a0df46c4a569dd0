import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { CheckpointTables } from '@spindle/db';
import { LOGGER } from '@spindle/service-kit';
import { DATABASE } from '@spindle/service-db';
import type { Logger } from '@spindle/telemetry';
import type { Kysely } from 'kysely';
import { CHECKPOINT_SETTINGS, type CheckpointSettings } from './checkpoint-settings';
import { purgeExpiredRows } from './expired-rows.purge';

const PURGE_EVERY_MS = 60 * 60 * 1_000;

/** Purges expired checkpoints and node results when the service starts and then every hour. */
@Injectable()
export class ExpiredRowsPurger implements OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;
  private running: Promise<void> = Promise.resolve();

  constructor(
    @Inject(DATABASE) private readonly db: Kysely<CheckpointTables>,
    @Inject(CHECKPOINT_SETTINGS) private readonly settings: CheckpointSettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    // Not awaited: a large first purge must not hold up readiness.
    this.schedulePurge();
    // Unref'd: the timer alone never keeps the process alive.
    this.timer = setInterval(() => this.schedulePurge(), PURGE_EVERY_MS).unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    // A purge in progress finishes before the database closes.
    await this.running;
  }

  /** One purge at a time: a slow one is followed, not overlapped, by the next. */
  private schedulePurge(): void {
    this.running = this.running.then(() => this.purge());
  }

  private async purge(): Promise<void> {
    try {
      const purged = await purgeExpiredRows(this.db, this.settings.ttlHours);
      const level = purged.checkpoints + purged.nodeResults > 0 ? 'info' : 'debug';
      this.logger[level](
        { ...purged, ttlHours: this.settings.ttlHours },
        `purged ${purged.checkpoints} checkpoints and ${purged.nodeResults} node results past their TTL`,
      );
    } catch (e) {
      // The next hour retries; expired node results are not served meanwhile.
      this.logger.error({ err: e }, 'purging expired checkpoints failed');
    }
  }
}
