import {
  isRetryable,
  isSpindleError,
  SpindleError,
  type KnowledgeDocument,
  type RetrieveAnswer,
  type RetrieveQuery,
} from '@spindle/contracts';
import { readFileBytes, type Bus } from '@spindle/bus';
import type { GatewayTables } from '@spindle/db';
import type { EmbeddingModelResolver } from '@spindle/llm';
import type { Logger } from '@spindle/telemetry';
import type { Kysely } from 'kysely';
import { chunkText } from './chunk-text';
import { VectorCache } from './vector-cache';
import { searchChunks } from './chunk-search';
import { embedTexts } from './embed-texts';
import { extractText, isDocumentMediaType } from './extract-text';
import { KnowledgeBaseRepository } from './knowledge-base.repository';
import { KnowledgeDocumentRepository, MAX_INGEST_ATTEMPTS, toDocument } from './knowledge-document.repository';

export interface KnowledgeServiceOptions {
  maxDocumentBytes: number;
  /** How long an ingestion may hold its claim before another dispatcher may take the document. */
  leaseMs: number;
  /** Deletes a document's bytes once nothing else names them (`FileLibrary.releaseBytes`): its chunks hold its text. */
  releaseBytes: (sha256: string) => Promise<void>;
}

/** Texts per embedding request: one document's chunks go in a few calls, not thousands. */
const EMBED_BATCH = 256;

/**
 * The control plane's knowledge work: ingesting a stored document (extract, chunk, embed, then
 * one transaction) and searching a base for a run or the API.
 */
export class KnowledgeService {
  readonly bases: KnowledgeBaseRepository;
  readonly documents: KnowledgeDocumentRepository;
  private readonly vectors = new VectorCache();

  constructor(
    private readonly bus: Bus,
    private readonly db: Kysely<GatewayTables>,
    private readonly embeddingModel: EmbeddingModelResolver,
    private readonly options: KnowledgeServiceOptions,
    private readonly logger: Logger,
  ) {
    this.bases = new KnowledgeBaseRepository(db);
    this.documents = new KnowledgeDocumentRepository(db);
  }

  /**
   * Ingests a pending document once (whoever holds the claim). A bad document or model fails it
   * with its code and throws that code (the gateway answers its 4xx); a retryable failure leaves it
   * pending for the loop, failing it after MAX_INGEST_ATTEMPTS. Nothing is written before every
   * chunk is embedded.
   */
  async ingest(tenant: string, documentId: string): Promise<KnowledgeDocument> {
    const claimed = await this.documents.claim(documentId, this.options.leaseMs);
    if (!claimed) {
      const row = await this.documents.find(tenant, documentId);
      if (!row) throw new SpindleError('not_found', `no document ${documentId}`);
      if (row.status === 'failed') throw new SpindleError(row.error_code as never, row.error_message ?? 'ingestion failed');
      return toDocument(row);
    }
    if (claimed.tenant_id !== tenant) throw new SpindleError('not_found', `no document ${documentId}`);
    try {
      const base = await this.bases.version(claimed.base_id, claimed.version);
      if (!base) throw new SpindleError('knowledge_base_not_found', 'the knowledge base version is gone');
      if (!isDocumentMediaType(claimed.media_type)) throw new SpindleError('unsupported_media_type', `cannot ingest ${claimed.media_type}`);
      const bytes = await readFileBytes(this.bus, claimed.sha256);
      if (!bytes) throw new SpindleError('invalid_document', 'the document bytes are gone from the object store');
      const text = extractText(bytes, claimed.media_type, this.options.maxDocumentBytes);
      const chunks = chunkText(text, base.chunking);
      if (chunks.length === 0) throw new SpindleError('invalid_document', 'the document has no text');
      const model = this.embeddingModel(base.embeddingModel);
      const embeddings: number[][] = [];
      for (let i = 0; i < chunks.length; i += EMBED_BATCH) {
        embeddings.push(
          ...(await embedTexts(
            model,
            chunks.slice(i, i + EMBED_BATCH).map((c) => c.text),
            base.dimensions,
          )),
        );
      }
      await this.documents.writeChunks(
        claimed,
        chunks.map((c, i) => ({ ...c, embedding: embeddings[i] })),
      );
    } catch (e) {
      if (await this.failed(claimed.id, claimed.attempts, e)) await this.release(claimed.sha256);
      throw e;
    }
    await this.release(claimed.sha256);
    return (await this.documents.get(tenant, claimed.base_id, claimed.id)) satisfies KnowledgeDocument;
  }

  /** One pass of the pending loop: documents nobody holds, each ingested (its failure is recorded on it). */
  async ingestPending(limit = 10): Promise<number> {
    let done = 0;
    for (const id of await this.documents.pendingIds(limit)) {
      const row = await this.db.selectFrom('knowledge_documents').select('tenant_id').where('id', '=', id).executeTakeFirst();
      if (!row) continue;
      await this.ingest(row.tenant_id, id).then(
        () => done++,
        (e: unknown) => this.logger.warn({ documentId: id, code: isSpindleError(e) ? e.code : undefined }, 'document ingestion failed'),
      );
    }
    return done;
  }

  async retrieve(q: RetrieveQuery): Promise<RetrieveAnswer> {
    const base = await this.bases.get(q.tenant, q.knowledgeBase);
    let embedding: number[];
    try {
      [embedding] = await embedTexts(this.embeddingModel(base.embeddingModel), [q.query], base.dimensions);
    } catch (e) {
      if (isSpindleError(e) && e.code === 'embedding_dimension_mismatch') throw e;
      throw new SpindleError('retrieval_failed', `the query could not be embedded: ${(e as Error).message}`, { cause: e });
    }
    const chunks = await searchChunks(
      this.db,
      base,
      { query: q.query, embedding, topK: q.topK, minScore: q.minScore, filter: q.filter },
      this.vectors,
    );
    return { retriever: 'knowledge_base', version: base.version, chunks };
  }

  /** Records the failure; answers whether it is final (the document will not be tried again). */
  private async failed(id: string, attempts: number, e: unknown): Promise<boolean> {
    const code = isSpindleError(e) ? e.code : 'internal';
    const message = e instanceof Error ? e.message : String(e);
    if (!isSpindleError(e)) this.logger.error({ err: e, documentId: id }, 'document ingestion failed');
    if (isRetryable(e) && attempts < MAX_INGEST_ATTEMPTS) {
      await this.documents.release(id, code, message);
      return false;
    }
    await this.documents.fail(id, code, isSpindleError(e) ? message : 'ingestion failed');
    return true;
  }

  /** A blob left behind costs only space, so a failure to release it is logged, not the ingestion's failure. */
  private async release(sha256: string): Promise<void> {
    await this.options.releaseBytes(sha256).catch((e: unknown) => this.logger.warn({ err: e, sha256 }, 'document bytes not released'));
  }
}
