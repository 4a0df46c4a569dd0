import { SpindleError, type KnowledgeDocument } from '@spindle/contracts';
import type { GatewayTables, KnowledgeDocumentsTable } from '@spindle/db';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { TextChunk } from './chunk-text';
import { hasVectorColumn } from './vector-index';

type Db = Kysely<GatewayTables>;
type DocumentRow = Selectable<KnowledgeDocumentsTable>;

export interface NewDocument {
  id: string;
  baseId: string;
  tenant: string;
  version: number;
  source: string;
  mediaType: string;
  bytes: number;
  sha256: string;
  metadata: Record<string, unknown>;
}

export interface EmbeddedChunk extends TextChunk {
  embedding: number[];
}

/** After this many failed attempts a retryable failure (a provider down) fails the document for good. */
export const MAX_INGEST_ATTEMPTS = 5;

/** A knowledge base's documents and their chunks. */
export class KnowledgeDocumentRepository {
  constructor(private readonly db: Db) {}

  /** `db`: the transaction that stored the document's bytes under their lock (`FileLibrary.storeNamed`). */
  async insertPending(doc: NewDocument, db: Kysely<GatewayTables> = this.db, now = new Date()): Promise<void> {
    await db
      .insertInto('knowledge_documents')
      .values({
        id: doc.id,
        base_id: doc.baseId,
        tenant_id: doc.tenant,
        version: doc.version,
        source: doc.source,
        media_type: doc.mediaType,
        bytes: doc.bytes,
        sha256: doc.sha256,
        metadata: JSON.stringify(doc.metadata),
        status: 'pending',
        created_at: now,
      })
      .execute();
  }

  async find(tenant: string, id: string): Promise<DocumentRow | undefined> {
    return this.db.selectFrom('knowledge_documents').selectAll().where('tenant_id', '=', tenant).where('id', '=', id).executeTakeFirst();
  }

  async get(tenant: string, baseId: string, id: string): Promise<KnowledgeDocument> {
    const row = await this.find(tenant, id);
    if (!row || row.base_id !== baseId) throw new SpindleError('not_found', `no document ${id} in this knowledge base`);
    return toDocument(row);
  }

  async list(tenant: string, baseId: string, limit = 200): Promise<KnowledgeDocument[]> {
    const rows = await this.db
      .selectFrom('knowledge_documents')
      .selectAll()
      .where('tenant_id', '=', tenant)
      .where('base_id', '=', baseId)
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toDocument);
  }

  /** The bytes a base's pending documents still need: what deleting the base lets go. */
  async pendingSha256s(baseId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('knowledge_documents')
      .select('sha256')
      .distinct()
      .where('base_id', '=', baseId)
      .where('status', '=', 'pending')
      .execute();
    return rows.map((r) => r.sha256);
  }

  async delete(tenant: string, baseId: string, id: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('knowledge_documents')
      .where('tenant_id', '=', tenant)
      .where('base_id', '=', baseId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /**
   * Claims a pending document for `leaseMs`: whoever moves the lease ingests it, so two
   * dispatchers (or the gateway's ask and the loop) never ingest one document at once.
   */
  async claim(id: string, leaseMs: number, now = new Date()): Promise<DocumentRow | undefined> {
    return this.db
      .updateTable('knowledge_documents')
      .set({ lease_until: new Date(now.getTime() + leaseMs), attempts: sql`attempts + 1` })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .returningAll()
      .executeTakeFirst();
  }

  /** Pending documents whose lease (if any) has passed, oldest first. */
  async pendingIds(limit: number, now = new Date()): Promise<string[]> {
    const rows = await this.db
      .selectFrom('knowledge_documents')
      .select('id')
      .where('status', '=', 'pending')
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .orderBy('created_at')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  async fail(id: string, code: string, message: string): Promise<void> {
    await this.db
      .updateTable('knowledge_documents')
      .set({ status: 'failed', error_code: code, error_message: message.slice(0, 1_000), lease_until: null })
      .where('id', '=', id)
      .execute();
  }

  /** Releases a claim after a retryable failure: the loop tries again once the lease has passed. */
  async release(id: string, code: string, message: string): Promise<void> {
    await this.db
      .updateTable('knowledge_documents')
      .set({ error_code: code, error_message: message.slice(0, 1_000) })
      .where('id', '=', id)
      .execute();
  }

  /**
   * All of a document's chunks and its flip to `ready`, in one transaction: a search sees the
   * whole document or none of it. False when the document was deleted (or finished) meanwhile.
   */
  async writeChunks(doc: DocumentRow, chunks: EmbeddedChunk[], now = new Date()): Promise<boolean> {
    const vector = await hasVectorColumn(this.db);
    return this.db.transaction().execute(async (trx) => {
      const flipped = await trx
        .updateTable('knowledge_documents')
        .set({
          status: 'ready',
          chunks: chunks.length,
          tokens: chunks.reduce((n, c) => n + c.tokens, 0),
          error_code: null,
          error_message: null,
          lease_until: null,
          ingested_at: now,
        })
        .where('id', '=', doc.id)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      if (Number(flipped.numUpdatedRows) === 0) return false;
      for (let i = 0; i < chunks.length; i += 500) {
        const rows = chunks.slice(i, i + 500).map((c) => ({
          id: `${doc.id}_${c.ord}`,
          document_id: doc.id,
          base_id: doc.base_id,
          version: doc.version,
          ord: c.ord,
          source: doc.source,
          text: c.text,
          tokens: c.tokens,
          metadata: JSON.stringify(doc.metadata),
          embedding: vectorBytes(c.embedding),
          ...(vector ? { embedding_vec: sql`${vectorLiteral(c.embedding)}::public.vector` } : {}),
        }));
        await trx
          .insertInto('knowledge_chunks')
          .values(rows as never)
          .execute();
      }
      return true;
    });
  }
}

/** A vector as stored: float32 little-endian. */
export function vectorBytes(v: readonly number[]): Buffer {
  const bytes = Buffer.alloc(v.length * 4);
  v.forEach((x, i) => bytes.writeFloatLE(x, i * 4));
  return bytes;
}

export function vectorLiteral(v: readonly number[]): string {
  return `[${v.join(',')}]`;
}

export function toDocument(row: DocumentRow): KnowledgeDocument {
  return {
    documentId: row.id,
    source: row.source,
    mediaType: row.media_type,
    bytes: row.bytes,
    sha256: row.sha256,
    version: row.version,
    status: row.status,
    chunks: row.chunks,
    tokens: row.tokens,
    metadata: row.metadata as Record<string, unknown>,
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
    createdAt: row.created_at.toISOString(),
    ingestedAt: row.ingested_at ? row.ingested_at.toISOString() : null,
  };
}
