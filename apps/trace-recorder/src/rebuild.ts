import { traceMigrations, type TraceTables } from '@spindle/db';
import { rebuildProjection } from '@spindle/projection-kit';
import { connectInfraBus, parseServiceConfig, runMain } from '@spindle/service-kit';
import { connectServiceDatabase } from '@spindle/service-db';
import { createLogger } from '@spindle/telemetry';
import { TraceProjection } from './trace.projection';

/** `npm run projections:rebuild`: same environment as the recorder; exits 0 once caught up. */
runMain('trace-recorder', async () => {
  const config = parseServiceConfig(process.env, 'trace-recorder', 'TRACE_RECORDER_PORT', 8082);
  const logger = createLogger(`${config.service}-rebuild`, { level: config.logLevel });
  const bus = await connectInfraBus(config);
  try {
    const { db } = await connectServiceDatabase<TraceTables>(config, 'trace', traceMigrations);
    try {
      const result = await rebuildProjection<TraceTables>(bus, db, new TraceProjection(bus.names.durables.traceRecorder), logger);
      logger.info(result, `rebuilt the trace projections: applied ${result.events} events of ${result.runs} runs`);
    } finally {
      await db.destroy();
    }
  } finally {
    await bus.close();
  }
});
