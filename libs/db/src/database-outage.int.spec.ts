import { eventually, startOwnPostgres, type OwnPostgres } from '@spindle/testing';
import { sql, type Kysely } from 'kysely';
import { createDatabase } from './database';
import { isDatabaseFault } from './database-faults';

/**
 * Issue 26, item 1: `pg_ctl stop -m fast` (a failover, a restart) terminates every session. A
 * pool's idle connections and a connection checked out between two statements both hear of it
 * as an 'error' event; with nobody listening, the process died. Here it must not, the failures
 * must read as outages, and the same pool must work again once the server is back.
 */
describe('a database that stops and comes back', () => {
  let pg: OwnPostgres | undefined;
  let db: Kysely<unknown>;
  const broken: Error[] = [];
  beforeAll(async () => {
    pg = await startOwnPostgres();
    if (!pg) throw new Error("this test needs the machine's PostgreSQL binaries (/usr/lib/postgresql/*/bin)");
    db = createDatabase<unknown>({ url: pg.url, schema: 'public', maxConnections: 4, onConnectionError: (e) => broken.push(e) });
  });
  afterAll(async () => {
    await db?.destroy();
    await pg?.stop();
  });

  it('survives a fast stop with idle and checked-out connections, answers outages as such, and recovers', async () => {
    // Fill the pool with idle connections, then hold one checked out inside a transaction.
    await Promise.all([1, 2, 3].map(() => sql`select pg_sleep(0.05)`.execute(db)));
    let inTransaction!: () => void;
    const stopped = new Promise<void>((resolve) => (inTransaction = resolve));
    const held = db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      inTransaction();
      await new Promise((r) => setTimeout(r, 1_500));
      await sql`select 2`.execute(trx);
    });
    await stopped;
    await pg!.stopFast();

    const failure = await held.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isDatabaseFault(failure)).toBe(true);
    // Idle connections told the pool they broke, through the listener, not as an uncaught error.
    await eventually(async () => expect(broken.length).toBeGreaterThan(0));
    const whileDown = await sql`select 1`.execute(db).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isDatabaseFault(whileDown)).toBe(true);

    await pg!.start();
    const { rows } = await sql<{ n: number }>`select 41 + 1 as n`.execute(db);
    expect(rows).toEqual([{ n: 42 }]);
  });
});
