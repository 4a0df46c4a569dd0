import type { GatewayTables } from '@spindle/db';
import { sql, type ExpressionBuilder, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';

export type FileRow = Selectable<GatewayTables['files']>;
type Db = Kysely<GatewayTables> | Transaction<GatewayTables>;

/** The advisory lock class of a file's bytes (the second key is the hash of its sha256). */
const FILE_BYTES_LOCK = 0x5f11e;

/** `files as f` rows no run refers to: what the collector may take, asked the same way when it lists and when it deletes. */
const unreferenced = ({ not, exists, selectFrom }: ExpressionBuilder<{ f: GatewayTables['files'] } & GatewayTables, 'f'>) =>
  not(
    exists(
      selectFrom('file_references as r')
        .select('r.run_id')
        .whereRef('r.tenant_id', '=', 'f.tenant_id')
        .whereRef('r.file_id', '=', 'f.file_id'),
    ),
  );

/** A tenant's files and the runs that refer to them; only this touches the `files` and `file_references` tables. */
export class FileRepository {
  constructor(readonly db: Kysely<GatewayTables>) {}

  /**
   * Serialises everything that stores or deletes one sha256's bytes (uploads and erasures of any
   * tenant), until the transaction ends. Two different hashes may share a key: they then wait for
   * each other, which is harmless.
   */
  async lockBytes(trx: Transaction<GatewayTables>, sha256: string): Promise<void> {
    await sql`select pg_advisory_xact_lock(${FILE_BYTES_LOCK}, hashtext(${sha256}))`.execute(trx);
  }

  /** The file, made or (the same bytes again) marked used now; its first name stays unless it had none. */
  async upsert(trx: Transaction<GatewayTables>, row: Insertable<GatewayTables['files']>): Promise<FileRow> {
    return trx
      .insertInto('files')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'file_id']).doUpdateSet({
          last_used_at: (eb) => eb.ref('excluded.last_used_at'),
          name: sql<string | null>`coalesce(files.name, excluded.name)`,
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  find(tenant: string, fileId: string, db: Db = this.db): Promise<FileRow | undefined> {
    return db.selectFrom('files').selectAll().where('tenant_id', '=', tenant).where('file_id', '=', fileId).executeTakeFirst();
  }

  /** The tenant's files among these ids, each marked used now (a run that names one starts its grace again). */
  touch(tenant: string, fileIds: readonly string[], now: Date): Promise<FileRow[]> {
    if (fileIds.length === 0) return Promise.resolve([]);
    return this.db
      .updateTable('files')
      .set({ last_used_at: now })
      .where('tenant_id', '=', tenant)
      .where('file_id', 'in', [...fileIds])
      .returningAll()
      .execute();
  }

  async referenceCount(tenant: string, fileId: string, db: Db = this.db): Promise<number> {
    const row = await db
      .selectFrom('file_references')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('tenant_id', '=', tenant)
      .where('file_id', '=', fileId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Deletes the file row unless a run refers to it (the foreign key refuses one that got a reference meanwhile). */
  async delete(trx: Transaction<GatewayTables>, tenant: string, fileId: string): Promise<boolean> {
    const deleted = await trx.deleteFrom('files').where('tenant_id', '=', tenant).where('file_id', '=', fileId).executeTakeFirst();
    return deleted.numDeletedRows > 0n;
  }

  /** Whether any tenant's file still names these bytes. */
  async bytesNamed(trx: Transaction<GatewayTables>, sha256: string): Promise<boolean> {
    if ((await trx.selectFrom('files').select('file_id').where('sha256', '=', sha256).limit(1).executeTakeFirst()) !== undefined)
      return true;
    // A knowledge document needs its bytes until it is ingested (its chunks then hold its text).
    const pending = trx.selectFrom('knowledge_documents').select('id').where('sha256', '=', sha256).where('status', '=', 'pending');
    return (await pending.limit(1).executeTakeFirst()) !== undefined;
  }

  /** Files no run refers to, unused since `before`: what the collector may delete. */
  collectable(before: Date, limit: number): Promise<Array<Pick<FileRow, 'tenant_id' | 'file_id' | 'sha256'>>> {
    return this.db
      .selectFrom('files as f')
      .select(['f.tenant_id', 'f.file_id', 'f.sha256'])
      .where('f.last_used_at', '<', before)
      .where(unreferenced)
      .orderBy('f.last_used_at')
      .limit(limit)
      .execute();
  }

  /** Deletes the file if it is still collectable (no reference, unused since `before`); answers whether it did. */
  async deleteIfCollectable(trx: Transaction<GatewayTables>, tenant: string, fileId: string, before: Date): Promise<boolean> {
    const deleted = await trx
      .deleteFrom('files as f')
      .where('f.tenant_id', '=', tenant)
      .where('f.file_id', '=', fileId)
      .where('f.last_used_at', '<', before)
      .where(unreferenced)
      .executeTakeFirst();
    return deleted.numDeletedRows > 0n;
  }
}

/** The (file, run) references the control plane's projection keeps; in the projection's own transaction. */
export class FileReferencesRepository {
  /**
   * Records that the runs refer to these files (one row per run and file, however often its log
   * names it). A file id names its tenant's file only (it is a hash of tenant and bytes), so the
   * tenant is the file's; an id of no file (deleted meanwhile, or never uploaded) adds nothing.
   * `for key share` waits for a delete of the row in flight and then skips the row, so a reference
   * racing the collector is left out rather than failing the batch on the foreign key.
   */
  async addReferences(trx: Transaction<GatewayTables>, refs: ReadonlyArray<{ runId: string; fileId: string }>): Promise<void> {
    if (refs.length === 0) return;
    const rows = refs.map((r) => sql`(${r.runId}, ${r.fileId})`);
    await sql`insert into file_references (tenant_id, file_id, run_id)
      select f.tenant_id, f.file_id, v.run_id from (values ${sql.join(rows)}) as v(run_id, file_id)
      join files f on f.file_id = v.file_id
      for key share of f
      on conflict do nothing`.execute(trx);
  }

  async dropReferences(trx: Transaction<GatewayTables>, runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) return;
    await trx
      .deleteFrom('file_references')
      .where('run_id', 'in', [...runIds])
      .execute();
  }

  async dropAllReferences(trx: Transaction<GatewayTables>): Promise<void> {
    await trx.deleteFrom('file_references').execute();
  }
}
