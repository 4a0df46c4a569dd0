import { sql, type Kysely } from 'kysely';

const hasColumn = new WeakMap<object, Promise<boolean>>();

/** Whether the chunks table has its pgvector column (the migration adds it where the extension exists). */
export function hasVectorColumn(db: Kysely<never> | Kysely<any>): Promise<boolean> {
  // Asked once per pool; a transaction asks on its own (it is another object).
  let known = hasColumn.get(db);
  if (!known) {
    known = sql<{ n: number }>`
      select count(*)::int as n from information_schema.columns
      where table_schema = current_schema() and table_name = 'knowledge_chunks' and column_name = 'embedding_vec'`
      .execute(db)
      .then((r) => (r.rows[0]?.n ?? 0) > 0);
    hasColumn.set(db, known);
  }
  return known;
}

const ID = /^kb_[a-z0-9]{26}$/;

/**
 * HNSW needs one dimension per index: each base version gets a partial expression index over its
 * own rows, `(embedding_vec::vector(d))`, which the search's `order by` names exactly.
 */
export async function createVersionIndex(db: Kysely<any>, baseId: string, version: number, dimensions: number): Promise<void> {
  if (!ID.test(baseId) || !Number.isInteger(version) || !Number.isInteger(dimensions)) throw new Error('bad index name parts');
  const name = `knowledge_chunks_hnsw_${baseId.slice(3)}_${version}`;
  await sql
    .raw(
      `create index if not exists ${name} on knowledge_chunks ` +
        `using hnsw ((embedding_vec::public.vector(${dimensions})) public.vector_cosine_ops) ` +
        `where base_id = '${baseId}' and version = ${version}`,
    )
    .execute(db);
}
