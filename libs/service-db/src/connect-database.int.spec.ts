import { dropSchema, serviceSchema } from '@spindle/db';
import { parseServiceConfig } from '@spindle/service-kit';
import { freePort, testEnv, testNamespace } from '@spindle/testing';
import { sql, type Kysely, type Migration } from 'kysely';
import { connectServiceDatabase } from './connect-database';

const migrations: Record<string, Migration> = {
  '0001_notes': {
    up: async (db) => {
      await db.schema
        .createTable('notes')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .execute();
    },
  },
};

function configFor(databaseUrl: string, namespace: string) {
  return parseServiceConfig({ DATABASE_URL: databaseUrl, SPINDLE_NAMESPACE: namespace }, 'notes-service', 'NOTES_PORT', 1);
}

describe('connectServiceDatabase', () => {
  it("migrates the service's own schema inside its namespace", async () => {
    const namespace = testNamespace();
    const { db, schema } = await connectServiceDatabase<{ notes: { id: number } }>(
      configFor(testEnv().databaseUrl, namespace),
      'notes',
      migrations,
    );
    try {
      expect(schema).toBe(serviceSchema('notes', namespace));
      await db.insertInto('notes').values({ id: 1 }).execute();
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(`${schema}.notes`)}`.execute(db);
      expect(rows[0]?.n).toBe(1);
    } finally {
      await dropSchema(db as Kysely<unknown>, schema);
      await db.destroy();
    }
  });

  it('names the variable and hides the password when PostgreSQL is unreachable', async () => {
    const url = `postgres://spindle:hunter2@127.0.0.1:${await freePort()}/nowhere`;
    const failure = connectServiceDatabase(configFor(url, testNamespace()), 'notes', migrations);
    await expect(failure).rejects.toThrow(/notes-service: cannot reach PostgreSQL at .*\*\*\*.* \(DATABASE_URL\)/);
    await expect(failure).rejects.not.toThrow(/hunter2/);
  });
});
