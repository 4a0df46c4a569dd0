import type pg from 'pg';
import { withClient } from './pg-databases';

/** What a framework made Postgres do, divided by the steps it ran: per step. */
export interface PgWrites {
  /** Statements executed (`pg_stat_statements` calls, BEGIN and COMMIT among them: each a round trip). */
  statements: number;
  /** Rows the INSERT, UPDATE, DELETE and MERGE statements among them wrote. */
  rowsWritten: number;
  /** WAL those statements generated, bytes (the commit records are not counted against a statement). */
  walBytes: number;
  /** Growth of the data on disk (tables, their indexes and TOAST), bytes. */
  storedBytes: number;
}

/** Whose writes count: one database (a peer's own), or the tables of some schemas in it (the stack's). */
export interface WritesScope {
  /** How to reach the server: the database it names must have (or be allowed to create) `pg_stat_statements`. */
  url: string;
  /** The database whose statements count. */
  database: string;
  /** Only the tables in schemas named with this prefix count as stored bytes (the database of `url` then is `database`). */
  schemaPrefix?: string;
}

export interface StatementCounters {
  query: string;
  calls: number;
  rows: number;
  walBytes: number;
}

/** One reading of the counters: `pg_stat_statements` of the database by entry (absent when not loaded), and the bytes stored. */
export interface PgReading {
  statements?: Map<string, StatementCounters>;
  /** When `pg_stat_statements` was last reset: a reset between two readings voids the count. */
  statementsEpoch?: string;
  storedBytes: number;
}

/** Marks the probe's own statements, which are left out of the count. */
const MARK = 'bench:pg-writes';

/**
 * Reads the counters now; `stop(steps)` reads them again and gives what was written in between,
 * per step. From `pg_stat_statements` (updated as each statement ends: no wait for a backend's
 * statistics to be flushed, which Postgres 15 may hold back ten seconds) and from the sizes of the
 * files. Statements of other clients of the same database count too: a peer gets its own. Each
 * reading is one query on a connection of its own, closed after: nothing is held in between.
 */
export async function startPgWrites(scope: WritesScope): Promise<{ stop: (steps: number) => Promise<PgWrites> }> {
  let withStatements = true;
  const before = await withClient(scope.url, (client) =>
    readPgWrites(client, scope, withStatements).catch(async () => {
      // Not loaded (shared_preload_libraries), or loaded and not yet created in this database.
      withStatements = await client.query('create extension if not exists pg_stat_statements').then(
        () => true,
        () => false,
      );
      return readPgWrites(client, scope, withStatements);
    }),
  );
  return {
    stop: async (steps) =>
      writesBetween(before, await withClient(scope.url, (client) => readPgWrites(client, scope, withStatements)), steps),
  };
}

async function readPgWrites(client: pg.Client, scope: WritesScope, withStatements: boolean): Promise<PgReading> {
  const epoch = withStatements ? '(select stats_reset::text from pg_stat_statements_info)' : 'null::text';
  const statements = withStatements
    ? `(select json_agg(json_build_object('key', userid::text || ':' || queryid::text || ':' || toplevel::text,
          'query', query, 'calls', calls, 'rows', rows, 'walBytes', wal_bytes))
        from pg_stat_statements where dbid = (select oid from pg_database where datname = $1))`
    : 'null::json';
  const stored =
    scope.schemaPrefix === undefined
      ? 'pg_database_size($1)'
      : `(select coalesce(sum(pg_total_relation_size(c.oid)), 0) from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where c.relkind in ('r', 'm') and left(n.nspname, length($2)) = $2)`;
  const {
    rows: [row],
  } = await client.query<{ db: string; epoch: string | null; statements: StatementRow[] | null; bytes: number }>(
    `select /* ${MARK} */ current_database() as db, $1::text as scope, ${epoch} as epoch, ${statements} as statements,
       ${stored}::float8 as bytes`,
    scope.schemaPrefix === undefined ? [scope.database] : [scope.database, scope.schemaPrefix],
  );
  if (!row) throw new Error('pg-writes: no reading');
  if (scope.schemaPrefix !== undefined && row.db !== scope.database)
    throw new Error(`pg-writes: the schemas ${scope.schemaPrefix}* are read in ${row.db}, not ${scope.database}`);
  return {
    ...(withStatements
      ? {
          statementsEpoch: row.epoch ?? '',
          statements: new Map(
            (row.statements ?? []).map((r) => [
              r.key,
              { query: r.query, calls: Number(r.calls), rows: Number(r.rows), walBytes: Number(r.walBytes) },
            ]),
          ),
        }
      : {}),
    storedBytes: row.bytes,
  };
}

/** An entry of `pg_stat_statements` as JSON (bigint and numeric counters may come as numbers or strings). */
type StatementRow = { key: string; query: string; calls: number | string; rows: number | string; walBytes: number | string };

/**
 * What was written between two readings, per step; the statements' figures NaN without
 * `pg_stat_statements`, or when it was reset in between (`pg_stat_statements_reset()`, by anyone).
 */
export function writesBetween(before: PgReading, after: PgReading, steps: number): PgWrites {
  let statements = 0;
  let rowsWritten = 0;
  let walBytes = 0;
  if (!before.statements || !after.statements || before.statementsEpoch !== after.statementsEpoch)
    statements = rowsWritten = walBytes = Number.NaN;
  else
    for (const [key, now] of after.statements) {
      if (now.query.includes(MARK)) continue;
      const then = before.statements.get(key);
      // An entry evicted (past pg_stat_statements.max, the least used first) and made again in between counts from zero.
      const since = then && now.calls >= then.calls ? then : { calls: 0, rows: 0, walBytes: 0 };
      statements += now.calls - since.calls;
      walBytes += now.walBytes - since.walBytes;
      if (isWrite(now.query)) rowsWritten += now.rows - since.rows;
    }
  return {
    statements: statements / steps,
    rowsWritten: rowsWritten / steps,
    walBytes: walBytes / steps,
    storedBytes: (after.storedBytes - before.storedBytes) / steps,
  };
}

/** Whether a statement's rows are rows it wrote: INSERT, UPDATE, DELETE, MERGE, or a WITH that does one of them. */
export function isWrite(query: string): boolean {
  const text = query.replace(/^(?:\s+|\/\*[\s\S]*?\*\/|--[^\n]*\n?)*/, '');
  if (/^(?:insert|update|delete|merge)\b/i.test(text)) return true;
  return /^with\b/i.test(text) && /\b(?:insert\s+into|update\s+\S+\s+set|delete\s+from|merge\s+into)\b/i.test(text);
}
