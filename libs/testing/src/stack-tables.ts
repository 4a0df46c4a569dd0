import { Client } from 'pg';
import type { Stack } from './service-stack';
import { testEnv } from './test-infra';

/**
 * Every row of every table in the stack's own schemas (each service's, its namespace's), as the
 * text Postgres gives a row: for tests that check what a stack keeps (a secret, an erased run).
 */
export async function rowsOfStack(stack: Pick<Stack, 'namespace'>): Promise<Array<{ table: string; rows: string[] }>> {
  const pg = new Client({ connectionString: testEnv().databaseUrl });
  await pg.connect();
  try {
    const { rows: tables } = await pg.query<{ table_schema: string; table_name: string }>(
      `select table_schema, table_name from information_schema.tables where table_schema like $1 and table_type = 'BASE TABLE'`,
      [`%${stack.namespace}%`],
    );
    const out: Array<{ table: string; rows: string[] }> = [];
    for (const t of tables) {
      const { rows } = await pg.query<{ row: string }>(`select t::text as row from "${t.table_schema}"."${t.table_name}" t`);
      out.push({ table: `${t.table_schema}.${t.table_name}`, rows: rows.map((r) => r.row) });
    }
    return out;
  } finally {
    await pg.end();
  }
}
