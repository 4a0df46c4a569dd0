import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Knowledge bases, their versions, documents and chunks. Chunks keep their embedding as float32
 * bytes (the exact search reads them once into the dispatcher's memory); where the `vector`
 * extension is available the chunks also get a `vector` column, and each base version an HNSW
 * index of its own dimension (see `createVersionIndex` in @spindle/knowledge).
 */
export const knowledgeMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('knowledge_bases')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('current_version', 'integer', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .addUniqueConstraint('knowledge_bases_tenant_name', ['tenant_id', 'name'])
      .execute();
    await db.schema
      .createTable('knowledge_base_versions')
      .addColumn('base_id', 'text', (c) => c.notNull().references('knowledge_bases.id').onDelete('cascade'))
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('embedding_model', 'text', (c) => c.notNull())
      .addColumn('dimensions', 'integer', (c) => c.notNull())
      .addColumn('chunk_size', 'integer', (c) => c.notNull())
      .addColumn('chunk_overlap', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addPrimaryKeyConstraint('knowledge_base_versions_pk', ['base_id', 'version'])
      .execute();
    await db.schema
      .createTable('knowledge_documents')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('base_id', 'text', (c) => c.notNull().references('knowledge_bases.id').onDelete('cascade'))
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('media_type', 'text', (c) => c.notNull())
      .addColumn('bytes', 'integer', (c) => c.notNull())
      .addColumn('sha256', 'text', (c) => c.notNull())
      .addColumn('metadata', 'jsonb', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('chunks', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('tokens', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('error_code', 'text')
      .addColumn('error_message', 'text')
      .addColumn('lease_until', 'timestamptz')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('ingested_at', 'timestamptz')
      .execute();
    await db.schema.createIndex('knowledge_documents_base_idx').on('knowledge_documents').columns(['base_id', 'created_at']).execute();
    await db.schema
      .createIndex('knowledge_documents_pending_idx')
      .on('knowledge_documents')
      .columns(['created_at'])
      .where(sql.ref('status'), '=', 'pending')
      .execute();
    await db.schema
      .createTable('knowledge_chunks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('document_id', 'text', (c) => c.notNull().references('knowledge_documents.id').onDelete('cascade'))
      .addColumn('base_id', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('ord', 'integer', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('text', 'text', (c) => c.notNull())
      .addColumn('tokens', 'integer', (c) => c.notNull())
      .addColumn('metadata', 'jsonb', (c) => c.notNull())
      .addColumn('tsv', sql`tsvector`, (c) => c.generatedAlwaysAs(sql`to_tsvector('english', text)`).stored())
      .addColumn('embedding', 'bytea', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('knowledge_chunks_base_idx').on('knowledge_chunks').columns(['base_id', 'version']).execute();
    await db.schema.createIndex('knowledge_chunks_tsv_idx').on('knowledge_chunks').using('gin').column('tsv').execute();
    await sql`create index knowledge_chunks_metadata_idx on knowledge_chunks using gin (metadata jsonb_path_ops)`.execute(db);
    const available = await sql<{ n: number }>`select count(*)::int as n from pg_available_extensions where name = 'vector'`.execute(db);
    if (available.rows[0]?.n) {
      // One extension per database, in `public`, named with its schema from every service schema.
      await sql`create extension if not exists vector with schema public`.execute(db);
      await sql`alter table knowledge_chunks add column embedding_vec public.vector`.execute(db);
    }
  },
};
