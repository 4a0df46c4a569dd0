import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type Json = ColumnType<unknown, string, string>;

/** Knowledge bases: control-plane tables, in the gateway's schema (the gateway writes bases, the dispatcher ingests). */
export interface KnowledgeTables {
  knowledge_bases: KnowledgeBasesTable;
  knowledge_base_versions: KnowledgeBaseVersionsTable;
  knowledge_documents: KnowledgeDocumentsTable;
  knowledge_chunks: KnowledgeChunksTable;
}

export interface KnowledgeBasesTable {
  id: string;
  tenant_id: string;
  name: string;
  current_version: number;
  description: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** What a version fixes: its chunks were cut and embedded this way, so a search embeds its query the same way. */
export interface KnowledgeBaseVersionsTable {
  base_id: string;
  version: number;
  embedding_model: string;
  dimensions: number;
  chunk_size: number;
  chunk_overlap: number;
  created_at: Timestamp;
}

export interface KnowledgeDocumentsTable {
  id: string;
  base_id: string;
  tenant_id: string;
  version: number;
  source: string;
  media_type: string;
  bytes: number;
  sha256: string;
  metadata: Json;
  status: 'pending' | 'ready' | 'failed';
  chunks: Generated<number>;
  tokens: Generated<number>;
  error_code: ColumnType<string | null, string | null | undefined, string | null>;
  error_message: ColumnType<string | null, string | null | undefined, string | null>;
  /** A dispatcher's claim on a pending document: another takes it once the lease has passed. */
  lease_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  attempts: Generated<number>;
  created_at: Timestamp;
  ingested_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface KnowledgeChunksTable {
  id: string;
  document_id: string;
  base_id: string;
  version: number;
  ord: number;
  source: string;
  text: string;
  tokens: number;
  metadata: Json;
  /** Generated: `to_tsvector('english', text)`. */
  tsv: Generated<string>;
  /** Float32 little-endian, L2-normalised (a dot product is the cosine). */
  embedding: Buffer;
}
