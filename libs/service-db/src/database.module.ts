import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { LOGGER, READINESS, startupHold, type ReadinessCheck, type ServiceConfig } from '@spindle/service-kit';
import type { Logger } from '@spindle/telemetry';
import { SpindleError } from '@spindle/contracts';
import { DATABASE_RETRY_AFTER_SEC } from '@spindle/db';
import { sql, type Kysely, type Migration } from 'kysely';
import { connectServiceDatabase } from './connect-database';
import { DATABASE } from './tokens';

export interface DatabaseOptions {
  config: ServiceConfig;
  /** Names the service's own schema (within its namespace). */
  owner: string;
  migrations: Record<string, Migration>;
}

/** What a service waiting for Postgres at start answers; where it looked stays in its own log. */
const STARTING_WITHOUT_POSTGRES = new SpindleError(
  'database_unavailable',
  'PostgreSQL does not answer yet; this service is waiting for it',
  {
    retryAfterSec: DATABASE_RETRY_AFTER_SEC,
  },
);

class DatabaseShutdown implements OnApplicationShutdown {
  constructor(@Inject(DATABASE) private readonly db: Kysely<unknown>) {}
  async onApplicationShutdown() {
    await this.db.destroy().catch(() => undefined);
  }
}

/**
 * The Postgres part of a service that owns tables: its schema (migrated at start), the
 * `DATABASE` token, and a `postgres` readiness check. Services without tables (the runner) do
 * not import it, so they load neither Kysely nor pg.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(opts: DatabaseOptions): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        {
          provide: DATABASE,
          inject: [READINESS, LOGGER],
          useFactory: async (readiness: ReadinessCheck[], logger: Logger) => {
            const { db } = await connectServiceDatabase(opts.config, opts.owner, opts.migrations, {
              onWait: (e, waitMs) => {
                logger.warn({ err: e, waitMs }, 'PostgreSQL does not answer yet; waiting for it');
                // Meanwhile the port answers: 503 database_unavailable, not a refused connection.
                void startupHold.waitingFor('postgres', STARTING_WITHOUT_POSTGRES);
              },
              // The error carries its pg client: only what it says is logged.
              onConnectionError: (e) =>
                logger.warn(
                  { code: (e as { code?: unknown }).code, reason: e.message },
                  'a PostgreSQL connection broke; the pool opens a new one',
                ),
            });
            readiness.push({ name: 'postgres', check: async () => void (await sql`select 1`.execute(db)) });
            return db;
          },
        },
        DatabaseShutdown,
      ],
      exports: [DATABASE],
    };
  }
}
