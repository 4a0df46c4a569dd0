import { checkpointMigrations, type CheckpointTables } from '@spindle/db';
import { parseServiceConfig, runMain } from '@spindle/service-kit';
import { connectServiceDatabase } from '@spindle/service-db';
import { createLogger } from '@spindle/telemetry';
import { parseCheckpointSettings } from './checkpoint-settings';
import { purgeExpiredRows } from './expired-rows.purge';

/** `npm run checkpoints:purge`: same environment as the service; removes what is past the TTL once. */
runMain('checkpoint', async () => {
  const config = parseServiceConfig(process.env, 'checkpoint', 'CHECKPOINT_PORT', 8083);
  const { ttlHours } = parseCheckpointSettings(process.env);
  const logger = createLogger(`${config.service}-purge`, { level: config.logLevel });
  const { db } = await connectServiceDatabase<CheckpointTables>(config, 'checkpoint', checkpointMigrations);
  try {
    const purged = await purgeExpiredRows(db, ttlHours);
    logger.info(
      { ...purged, ttlHours },
      `removed ${purged.checkpoints} checkpoints and ${purged.nodeResults} node results older than ${ttlHours} h`,
    );
  } finally {
    await db.destroy();
  }
});
