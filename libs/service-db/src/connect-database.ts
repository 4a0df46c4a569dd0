import { createDatabase, migrateToLatest, pingDatabase, serviceSchema } from '@spindle/db';
import type { ServiceConfig } from '@spindle/service-kit';
import type { Kysely, Migration } from 'kysely';

/** Opens the service's own schema and migrates it; a failure says where it looked and what to do. */
export async function connectServiceDatabase<DB>(
  config: ServiceConfig,
  schemaOwner: string,
  migrations: Record<string, Migration>,
): Promise<{ db: Kysely<DB>; schema: string }> {
  const schema = serviceSchema(schemaOwner, config.namespace);
  const db = createDatabase<DB>({ url: config.databaseUrl, schema });
  try {
    await pingDatabase(db as Kysely<unknown>);
  } catch (e) {
    await db.destroy();
    throw new Error(
      `${config.service}: cannot reach PostgreSQL at ${redact(config.databaseUrl)} (DATABASE_URL): ${(e as Error).message}. ` +
        `Start PostgreSQL 15 locally or run: docker compose up -d postgres`,
      { cause: e },
    );
  }
  await migrateToLatest(db as Kysely<unknown>, schema, migrations);
  return { db, schema };
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
