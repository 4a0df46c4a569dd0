import { testEnv, testNamespace } from '@spindle/testing';
import { Kysely, sql } from 'kysely';
import { Pool, type PoolClient } from 'pg';
import { dropSchema, serviceSchema } from './database';
import { PostgresDialect } from './postgres-dialect';

interface Tables {
  notes: { id: number; text: string };
}

/** Every query text a client sends: one entry per round trip. */
function countingPool(schema: string, sent: string[]): Pool {
  const pool = new Pool({ connectionString: testEnv().databaseUrl, max: 1, options: `-c search_path=${schema}` });
  const connect = pool.connect.bind(pool) as () => Promise<PoolClient>;
  (pool as { connect: () => Promise<PoolClient> }).connect = async () => {
    const client = await connect();
    if (!(client as { counted?: boolean }).counted) {
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      Object.assign(client, {
        counted: true,
        query: (text: unknown, ...rest: unknown[]) => {
          sent.push(String(text).replace(/\s+/g, ' ').trim());
          return query(text, ...rest);
        },
      });
    }
    return client;
  };
  return pool;
}

describe('the Postgres dialect: fewer round trips per transaction, the same outcomes', () => {
  const schema = serviceSchema('dialect', testNamespace());
  const sent: string[] = [];
  let db: Kysely<Tables>;
  const texts = () => db.selectFrom('notes').select('text').orderBy('id').execute();

  beforeAll(async () => {
    db = new Kysely<Tables>({ dialect: new PostgresDialect(countingPool(schema, sent)) });
    await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
    await sql`create table ${sql.id(schema, 'notes')} (id integer primary key, text text not null)`.execute(db);
  });
  beforeEach(async () => {
    await sql`truncate notes`.execute(db);
    sent.length = 0;
  });
  afterAll(async () => {
    await dropSchema(db as Kysely<unknown>, schema);
    await db.destroy();
  });

  it('sends BEGIN with a first statement that has no parameters, and returns that statement rows', async () => {
    const rows = await db.transaction().execute(async (trx) => {
      const first = await sql<{ n: number }>`select 41 + 1 as n`.execute(trx);
      await trx.insertInto('notes').values({ id: 1, text: 'a' }).execute();
      return first.rows;
    });
    expect(rows).toEqual([{ n: 42 }]);
    expect(sent).toEqual(['begin; select 41 + 1 as n', 'insert into "notes" ("id", "text") values ($1, $2)', 'commit']);
    expect(await texts()).toEqual([{ text: 'a' }]);
  });

  it('sends BEGIN alone before a first statement with parameters', async () => {
    await db.transaction().execute((trx) => trx.insertInto('notes').values({ id: 1, text: 'a' }).execute());
    expect(sent).toEqual(['begin', 'insert into "notes" ("id", "text") values ($1, $2)', 'commit']);
  });

  it('sends no COMMIT after a last statement that committed, and what it committed stays', async () => {
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('notes').values({ id: 1, text: 'a' }).execute();
      await sql.raw(`insert into notes values (2, 'b'); commit`).execute(trx);
    });
    expect(sent).toEqual(['begin', 'insert into "notes" ("id", "text") values ($1, $2)', "insert into notes values (2, 'b'); commit"]);
    expect(await texts()).toEqual([{ text: 'a' }, { text: 'b' }]);
  });

  it('rolls back everything when a statement fails, BEGIN carried or not', async () => {
    const failing = db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      await trx.insertInto('notes').values({ id: 1, text: 'a' }).execute();
      await trx.insertInto('notes').values({ id: 1, text: 'again' }).execute();
    });
    await expect(failing).rejects.toThrow(/duplicate key/);
    expect(sent.at(-1)).toBe('rollback');
    expect(await texts()).toEqual([]);
    // The connection went back to the pool clean: the next transaction works.
    await db.transaction().execute((trx) => trx.insertInto('notes').values({ id: 3, text: 'c' }).execute());
    expect(await texts()).toEqual([{ text: 'c' }]);
  });

  it('rolls back the transaction when the statement sent with its COMMIT fails', async () => {
    const failing = db.transaction().execute(async (trx) => {
      await trx.insertInto('notes').values({ id: 1, text: 'a' }).execute();
      await sql.raw(`insert into notes values (1, 'again'); commit`).execute(trx);
    });
    await expect(failing).rejects.toThrow(/duplicate key/);
    expect(await texts()).toEqual([]);
  });

  it('sends nothing for a transaction that ran no statement', async () => {
    await db.transaction().execute(async () => undefined);
    await expect(db.transaction().execute(async () => Promise.reject(new Error('changed its mind')))).rejects.toThrow('changed its mind');
    expect(sent).toEqual([]);
  });

  it('keeps an isolation level asked for', async () => {
    const level = await db
      .transaction()
      .setIsolationLevel('serializable')
      .execute(
        async (trx) => (await sql<{ level: string }>`select current_setting('transaction_isolation') as level`.execute(trx)).rows[0]!.level,
      );
    expect(level).toBe('serializable');
    expect(sent[0]).toBe("start transaction isolation level serializable; select current_setting('transaction_isolation') as level");
  });

  it('counts the rows a statement changed', async () => {
    await db
      .insertInto('notes')
      .values([
        { id: 1, text: 'a' },
        { id: 2, text: 'b' },
      ])
      .execute();
    const [updated] = await db.updateTable('notes').set({ text: 'z' }).execute();
    expect(updated!.numUpdatedRows).toBe(2n);
  });
});
