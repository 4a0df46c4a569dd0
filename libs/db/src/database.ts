import { Kysely, Migrator, sql, type Migration } from 'kysely';
import { Pool } from 'pg';
import { PostgresDialect } from './postgres-dialect';

export interface DatabaseOptions {
  url: string;
  /** The owning service's schema; every unqualified table name resolves inside it. */
  schema: string;
  maxConnections?: number;
  /**
   * Told of an idle connection that broke (a restart, a failover). The pool drops it and the next
   * query opens a new one; without a listener the pool's 'error' event would end the process.
   */
  onConnectionError?: (e: Error) => void;
}

const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/** A Kysely instance whose connections live in one service's schema (`search_path`). */
export function createDatabase<DB>(opts: DatabaseOptions): Kysely<DB> {
  assertSchemaName(opts.schema);
  const pool = new Pool({
    connectionString: opts.url,
    max: opts.maxConnections ?? 10,
    options: `-c search_path=${opts.schema}`,
    connectionTimeoutMillis: 5_000,
  });
  pool.on('error', opts.onConnectionError ?? (() => undefined));
  return new Kysely<DB>({ dialect: new PostgresDialect(pool) });
}

/**
 * Schema changes on one database, one at a time: Kysely's migrator looks at every table in the
 * database before it takes its own lock, and fails when another schema is dropped meanwhile.
 */
const SCHEMA_CHANGE_LOCK = 0x5b1d_0003;

/** Creates the schema and applies the service's migrations, in order, exactly once each. */
/** Applies the schema's pending migrations; returns the names of those it applied (empty: it was up to date). */
export async function migrateToLatest(db: Kysely<unknown>, schema: string, migrations: Record<string, Migration>): Promise<string[]> {
  assertSchemaName(schema);
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${SCHEMA_CHANGE_LOCK})`.execute(conn);
    try {
      await sql`create schema if not exists ${sql.id(schema)}`.execute(conn);
      const migrator = new Migrator({
        db: conn,
        migrationTableSchema: schema,
        provider: { getMigrations: async () => migrations },
      });
      const { error, results } = await migrator.migrateToLatest();
      const failed = results?.find((r) => r.status === 'Error');
      if (error || failed) {
        throw new Error(
          `migrations of schema "${schema}" failed${failed ? ` at ${failed.migrationName}` : ''}: ` +
            String((error as Error)?.message ?? error),
          { cause: error },
        );
      }
      return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    } finally {
      await sql`select pg_advisory_unlock(${SCHEMA_CHANGE_LOCK})`.execute(conn);
    }
  });
}

/** Drops a schema and everything in it (tests). */
export async function dropSchema(db: Kysely<unknown>, schema: string): Promise<void> {
  assertSchemaName(schema);
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${SCHEMA_CHANGE_LOCK})`.execute(trx);
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(trx);
  });
}

export async function pingDatabase(db: Kysely<unknown>): Promise<void> {
  await sql`select 1`.execute(db);
}

/** `<namespace>_<service>`, or just `<service>` without a namespace. */
export function serviceSchema(service: string, namespace = ''): string {
  const schema = namespace ? `${namespace}_${service}` : service.replace(/-/g, '_');
  assertSchemaName(schema.replace(/-/g, '_'));
  return schema.replace(/-/g, '_');
}

function assertSchemaName(schema: string) {
  if (!SCHEMA_PATTERN.test(schema)) throw new Error(`invalid schema name "${schema}"`);
}
