import pg from 'pg';

// A peer framework's own Postgres database for one bench run: created before, dropped after, so
// what it writes is counted apart from everything else on the server.

/** `databaseUrl` pointing at `database` on the same server. */
export function databaseUrlFor(databaseUrl: string, database: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function createScratchDatabase(databaseUrl: string, database: string): Promise<void> {
  await withClient(databaseUrl, async (client) => {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (!rowCount) await client.query(`create database "${quoted(database)}"`);
  });
}

/**
 * Drops the database once its clients are gone: a pool's `end()` resolves while its connections
 * are still closing, and a connection forced off then errs in a pool that may have no listener.
 * After two seconds of waiting, forced.
 */
export async function dropScratchDatabase(databaseUrl: string, database: string): Promise<void> {
  await withClient(databaseUrl, async (client) => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const dropped = await client.query(`drop database if exists "${quoted(database)}"`).then(
        () => true,
        (e: { code?: string }) => {
          if (e.code === '55006') return false; // still being accessed by other users
          throw e;
        },
      );
      if (dropped) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await client.query(`drop database if exists "${quoted(database)}" with (force)`);
  });
}

/** One client on the database the URL names, ended after `use`. */
export async function withClient<T>(databaseUrl: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

const quoted = (name: string) => name.replace(/"/g, '');
