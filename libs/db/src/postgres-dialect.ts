import {
  AbortedTransactionError,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { Pool, PoolClient, QueryResult as PgResult } from 'pg';

/**
 * Kysely's Postgres dialect with two round trips fewer per transaction where the statements allow
 * it. Every statement costs a round trip, and on a busy machine that is a millisecond or more,
 * most of a projection batch's time:
 *
 * - BEGIN is not sent alone: it travels with the transaction's first statement when that one
 *   takes no parameters (one simple query of two statements; Postgres runs them in order and
 *   stops at the first error), else just before it.
 * - COMMIT is not sent when Postgres reports no transaction open: the transaction's last
 *   statement committed it (a `…; commit` simple query, see `recordProgressAndCommit`).
 *
 * Everything else is what Kysely's own Postgres driver does.
 */
export class PostgresDialect implements Dialect {
  constructor(private readonly pool: Pool) {}

  createAdapter() {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PostgresDriver(this.pool);
  }

  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }

  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
}

class PostgresDriver implements Driver {
  constructor(private readonly pool: Pool) {}

  /** The pool is made by the caller: nothing to set up. */
  init(): Promise<void> {
    return Promise.resolve();
  }

  async acquireConnection(): Promise<PostgresConnection> {
    return new PostgresConnection(await this.pool.connect());
  }

  async beginTransaction(connection: PostgresConnection, settings: TransactionSettings): Promise<void> {
    connection.beginWithNextStatement(beginStatement(settings));
  }

  async commitTransaction(connection: PostgresConnection): Promise<void> {
    await connection.commit();
  }

  async rollbackTransaction(connection: PostgresConnection): Promise<void> {
    await connection.rollback();
  }

  async releaseConnection(connection: PostgresConnection): Promise<void> {
    connection.release();
  }

  async destroy(): Promise<void> {
    await this.pool.end();
  }
}

/** `pg` reports the session's transaction status from each ReadyForQuery: idle, in a transaction, or in a failed one. */
type StatusReportingClient = PoolClient & { getTransactionStatus?(): 'I' | 'T' | 'E' | null };

class PostgresConnection implements DatabaseConnection {
  /** The transaction's BEGIN, not sent yet: it goes with the next statement. */
  private pendingBegin?: string;
  /** A rollback failed: the session may still be in a transaction, so it never goes back to the pool. */
  private discard = false;
  /**
   * The connection broke while checked out (the server shut down, a failover): the statement in
   * flight, if any, fails with it; the client is destroyed on release. Without a listener, `pg`
   * emits the error on a client nobody listens to, and the process dies.
   */
  private broken?: Error;
  private readonly onError = (e: Error) => void (this.broken ??= e);

  constructor(private readonly client: StatusReportingClient) {
    client.on('error', this.onError);
  }

  beginWithNextStatement(begin: string): void {
    this.pendingBegin = begin;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const begin = this.pendingBegin;
    this.pendingBegin = undefined;
    const parameters = [...query.parameters];
    // A simple query (no parameters) may hold several statements; one with parameters may not.
    if (begin !== undefined && parameters.length > 0) await this.client.query(begin);
    const sent = begin !== undefined && parameters.length === 0 ? `${begin};\n${query.sql}` : query.sql;
    const results: PgResult | PgResult[] = await this.client.query(sent, parameters);
    // Several statements answer with one result each: the last is the statement the caller sent.
    const { command, rowCount, rows } = Array.isArray(results) ? (results[results.length - 1] as PgResult) : results;
    const changed = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
    return { rows: (rows ?? []) as R[], ...(changed ? { numAffectedRows: BigInt(rowCount ?? 0) } : {}) };
  }

  /** Nothing here streams; Kysely asks for the method all the same. */
  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported by this dialect');
  }

  async commit(): Promise<void> {
    // Nothing was sent since BEGIN (it never left), or the last statement committed: nothing is open.
    if (this.pendingBegin !== undefined) return void (this.pendingBegin = undefined);
    if (this.client.getTransactionStatus?.() === 'I') return;
    const { command } = await this.client.query('commit');
    // Postgres completes COMMIT with a ROLLBACK tag when an earlier error left the transaction aborted.
    if (command === 'ROLLBACK') throw new AbortedTransactionError();
  }

  async rollback(): Promise<void> {
    if (this.pendingBegin !== undefined) return void (this.pendingBegin = undefined);
    try {
      await this.client.query('rollback');
    } catch (e) {
      this.discard = true;
      throw e;
    }
  }

  release(): void {
    this.pendingBegin = undefined;
    this.client.removeListener('error', this.onError);
    this.client.release(this.broken ?? (this.discard ? new Error('discarded: its rollback failed') : undefined));
  }
}

function beginStatement(settings: TransactionSettings): string {
  if (!settings.isolationLevel && !settings.accessMode) return 'begin';
  return ['start transaction', settings.isolationLevel && `isolation level ${settings.isolationLevel}`, settings.accessMode]
    .filter(Boolean)
    .join(' ');
}
