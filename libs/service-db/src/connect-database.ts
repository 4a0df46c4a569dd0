import { createDatabase, isDatabaseFault, migrateToLatest, pingDatabase, serviceSchema } from '@spindle/db';
import { backoffDelay, sleep } from '@spindle/contracts';
import type { ServiceConfig } from '@spindle/service-kit';
import type { Kysely, Migration } from 'kysely';

export interface ConnectOptions {
  /**
   * A service waits for a database that does not answer yet (an outage at start, a failover in
   * progress), telling `onWait` of each try, instead of exiting: it comes up by itself once
   * Postgres does. Without it (the command-line tools) the first failure ends the call.
   */
  onWait?: (e: Error, waitMs: number) => void;
  /** Told of a connection the pool dropped after it broke (see `createDatabase`). */
  onConnectionError?: (e: Error) => void;
}

/** Opens the service's own schema and migrates it; a failure says where it looked and what to do. */
export async function connectServiceDatabase<DB>(
  config: ServiceConfig,
  schemaOwner: string,
  migrations: Record<string, Migration>,
  opts: ConnectOptions = {},
): Promise<{ db: Kysely<DB>; schema: string }> {
  const schema = serviceSchema(schemaOwner, config.namespace);
  const db = createDatabase<DB>({ url: config.databaseUrl, schema, onConnectionError: opts.onConnectionError });
  const open = async () => {
    await pingDatabase(db as Kysely<unknown>).catch((e: unknown) => {
      throw new Error(
        `${config.service}: cannot reach PostgreSQL at ${redact(config.databaseUrl)} (DATABASE_URL): ${(e as Error).message}. ` +
          `Start PostgreSQL 15 locally or run: docker compose up -d postgres`,
        { cause: e },
      );
    });
    await migrateToLatest(db as Kysely<unknown>, schema, migrations);
  };
  for (let attempt = 1; ; attempt++) {
    const waitMs = backoffDelay(attempt, { initialMs: 250, maxMs: 5_000 });
    try {
      await open();
      return { db, schema };
    } catch (e) {
      // isDatabaseFault looks through `cause`: both the ping's and the migrator's errors carry it.
      if (!opts.onWait || !isDatabaseFault(e)) {
        await db.destroy();
        throw e;
      }
      opts.onWait(e as Error, waitMs);
      await sleep(waitMs);
    }
  }
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable DATABASE_URL)';
  }
}
