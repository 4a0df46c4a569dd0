import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { DEFAULT_TENANT, SCOPES } from '@spindle/contracts';
import type { GatewayTables } from '@spindle/db';
import { generateApiKey } from '@spindle/identity';
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';

/** Serializes first starts of several gateways on one database. */
const BOOTSTRAP_LOCK = 0x5b1d_0001; // the advisory lock keys 0x5b1d_000n: 2 admission, 3 schema changes (libs/db)

/**
 * The two-command start: on a database without any API key, the first gateway makes an admin
 * key of the default tenant (every scope) and writes it to `file` (mode 0600), never to a log.
 * Nothing happens once any key exists, so it runs at most once per installation.
 */
export async function bootstrapAdminKey(db: Kysely<GatewayTables>, file: string, logger: Logger): Promise<void> {
  let made: string | undefined;
  try {
    await db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK})`.execute(trx);
      const { n } = await trx
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      if (Number(n) > 0) return;
      const key = generateApiKey();
      await trx
        .insertInto('api_keys')
        .values({
          id: key.id,
          tenant_id: DEFAULT_TENANT,
          name: 'bootstrap admin',
          scopes: JSON.stringify(SCOPES),
          secret_hash: key.secretHash,
          created_at: new Date(),
          created_by: JSON.stringify({ kind: 'system', id: 'bootstrap', name: 'first start' }),
        })
        .execute();
      // Written before the commit: a key nobody could ever read must not be left behind.
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${key.token}\n`, { mode: 0o600 });
      made = key.id;
    });
  } catch (e) {
    if (made) rmSync(file, { force: true });
    throw e;
  }
  if (made) logger.warn({ keyId: made, file }, 'first start: created an admin API key for tenant "default"; it is in the file named here');
}
