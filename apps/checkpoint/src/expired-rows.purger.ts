import { Inject, Injectable } from '@nestjs/common';
import type { CheckpointTables } from '@spindle/db';
import { LOGGER, PeriodicLoop } from '@spindle/service-kit';
import { DATABASE } from '@spindle/service-db';
import type { Logger } from '@spindle/telemetry';
import type { Kysely } from 'kysely';
import { CHECKPOINT_SETTINGS, type CheckpointSettings } from './checkpoint-settings';
import { purgeExpiredRows } from './expired-rows.purge';

const PURGE_EVERY_MS = 60 * 60 * 1_000;

/** Purges expired checkpoints and node results when the service starts and then every hour. */
@Injectable()
export class ExpiredRowsPurger extends PeriodicLoop {
  constructor(
    @Inject(DATABASE) db: Kysely<CheckpointTables>,
    @Inject(CHECKPOINT_SETTINGS) settings: CheckpointSettings,
    @Inject(LOGGER) logger: Logger,
  ) {
    super({ name: 'expired rows purge', everyMs: PURGE_EVERY_MS, passAtStart: true, logger, pass: () => purge(db, settings, logger) });
  }
}

async function purge(db: Kysely<CheckpointTables>, settings: CheckpointSettings, logger: Logger): Promise<void> {
  try {
    const purged = await purgeExpiredRows(db, settings.ttlHours);
    const level = purged.checkpoints + purged.nodeResults > 0 ? 'info' : 'debug';
    logger[level](
      { ...purged, ttlHours: settings.ttlHours },
      `purged ${purged.checkpoints} checkpoints and ${purged.nodeResults} node results past their TTL`,
    );
  } catch (e) {
    // The next hour retries; expired node results are not served meanwhile.
    logger.error({ err: e }, 'purging expired checkpoints failed');
  }
}
