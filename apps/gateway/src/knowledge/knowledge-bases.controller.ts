import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { query, type Bus } from '@spindle/bus';
import { FileLibrary } from '@spindle/control-plane';
import {
  documentJsonBodySchema,
  isRetryable,
  isSpindleError,
  knowledgeBaseSaveSchema,
  knowledgeQueryBodySchema,
  parseBody,
  SpindleError,
  type DispatcherQueryResults,
  type KnowledgeBase,
  type KnowledgeDocument,
  type Principal,
  type RetrieveAnswer,
} from '@spindle/contracts';
import { isDocumentMediaType, KnowledgeBaseRepository, KnowledgeDocumentRepository, toDocument } from '@spindle/knowledge';
import { BUS } from '@spindle/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import type { GatewayConfig } from '../gateway.config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { DocumentIdParam, KnowledgeBaseNameParam, NewKnowledgeBaseNameParam } from '../http/path-params';
import { refuseNulCharacters } from '../http/storable-json';
import { claimedTypeOf, isUploadRoute, readUpload } from '../http/upload-body';
import { AuditTrail } from '../identity/audit-trail';
import { Caller } from '../identity/caller.decorator';

/** How long an upload waits for the dispatcher's ingestion before answering `202 pending`. */
const INGEST_WAIT_MS = 20_000;

/**
 * Knowledge bases of the caller's tenant: configuration and documents. Ingestion is the
 * dispatcher's (control-plane work): the gateway stores the bytes, records the document as
 * `pending` and asks; another tenant's base is `404 knowledge_base_not_found` on every route.
 */
@Controller('v1/knowledge-bases')
export class KnowledgeBasesController {
  constructor(
    private readonly bases: KnowledgeBaseRepository,
    private readonly documents: KnowledgeDocumentRepository,
    private readonly audit: AuditTrail,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(BUS) private readonly bus: Bus,
    private readonly files: FileLibrary,
  ) {}

  @Put(':name')
  async save(
    @Caller() caller: Principal,
    @Param('name', NewKnowledgeBaseNameParam) name: string,
    @Body() body: unknown,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    refuseNulCharacters(body);
    const save = parseBody(knowledgeBaseSaveSchema, body ?? {});
    const { base, created } = await this.bases.save(caller.tenant, name, save);
    await this.audit.record(caller, req, {
      action: 'knowledge_base.saved',
      target: { kind: 'knowledge_base', id: name },
      detail: { version: base.version, embeddingModel: base.embeddingModel },
    });
    return reply.status(created ? 201 : 200).send(base);
  }

  @Get()
  async list(@Caller() caller: Principal): Promise<{ knowledgeBases: KnowledgeBase[] }> {
    return { knowledgeBases: await this.bases.list(caller.tenant) };
  }

  @Get(':name')
  async get(@Caller() caller: Principal, @Param('name', KnowledgeBaseNameParam) name: string): Promise<KnowledgeBase> {
    const base = await this.bases.describe(caller.tenant, name);
    if (!base) throw new SpindleError('knowledge_base_not_found', `no knowledge base "${name}"`);
    return base;
  }

  @Delete(':name')
  @HttpCode(204)
  async delete(@Caller() caller: Principal, @Param('name', KnowledgeBaseNameParam) name: string, @Req() req: FastifyRequest) {
    const pending = await this.documents.pendingSha256s((await this.bases.get(caller.tenant, name)).baseId);
    if (!(await this.bases.delete(caller.tenant, name))) throw new SpindleError('knowledge_base_not_found', `no knowledge base "${name}"`);
    // Its pending documents' bytes were still needed; now nothing of the base names them.
    for (const sha256 of pending) await this.files.releaseBytes(sha256);
    await this.audit.record(caller, req, { action: 'knowledge_base.deleted', target: { kind: 'knowledge_base', id: name } });
  }

  /**
   * Raw text, Markdown or PDF with `?source=`, or JSON `{ source, text, metadata }`: 201 ingested,
   * 202 still pending, or the document's 4xx.
   */
  @Post(':name/documents')
  async ingest(
    @Caller() caller: Principal,
    @Param('name', KnowledgeBaseNameParam) name: string,
    @Body() body: unknown,
    @Query('source') sourceParam: unknown,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const base = await this.bases.get(caller.tenant, name);
    const upload = isUploadRoute(req)
      ? rawDocument(
          await readUpload(req, this.config.maxDocumentBytes, () => tooLarge(this.config.maxDocumentBytes)),
          claimedTypeOf(req),
          sourceParam,
        )
      : jsonDocument(body);
    if (upload.bytes.byteLength > this.config.maxDocumentBytes) throw tooLarge(this.config.maxDocumentBytes);
    if (upload.bytes.byteLength === 0) throw new SpindleError('invalid_document', 'the document is empty');
    const documentId = `doc_${randomId()}`;
    // The bytes and the row that names them are written under the bytes' lock, as an upload's are.
    await this.files.storeNamed(upload.bytes, (trx, sha256) =>
      this.documents.insertPending(
        {
          id: documentId,
          baseId: base.baseId,
          tenant: caller.tenant,
          version: base.version,
          source: upload.source,
          mediaType: upload.mediaType,
          bytes: upload.bytes.byteLength,
          sha256,
          metadata: upload.metadata,
        },
        trx,
      ),
    );
    await this.audit.record(caller, req, { action: 'knowledge_document.added', target: { kind: 'knowledge_document', id: documentId } });
    let document: KnowledgeDocument;
    try {
      ({ document } = await query<DispatcherQueryResults['ingestDocument']>(
        this.bus,
        'dispatcher',
        'ingestDocument',
        { tenant: caller.tenant, documentId },
        INGEST_WAIT_MS,
      ));
    } catch (e) {
      // Not answered in time, or a failure worth another try: the dispatcher's loop ingests it later.
      if (!isSpindleError(e) || isRetryable(e)) {
        const row = await this.documents.find(caller.tenant, documentId);
        if (row) return reply.status(202).header('location', documentLocation(name, documentId)).send(toDocument(row));
      }
      throw e;
    }
    // Pending: another dispatcher (its loop) holds the claim and is ingesting it now.
    return reply
      .status(document.status === 'pending' ? 202 : 201)
      .header('location', documentLocation(name, documentId))
      .send(document);
  }

  @Get(':name/documents')
  async listDocuments(@Caller() caller: Principal, @Param('name', KnowledgeBaseNameParam) name: string) {
    const base = await this.bases.get(caller.tenant, name);
    return { documents: await this.documents.list(caller.tenant, base.baseId) };
  }

  @Get(':name/documents/:documentId')
  async getDocument(
    @Caller() caller: Principal,
    @Param('name', KnowledgeBaseNameParam) name: string,
    @Param('documentId', DocumentIdParam) documentId: string,
  ): Promise<KnowledgeDocument> {
    const base = await this.bases.get(caller.tenant, name);
    return this.documents.get(caller.tenant, base.baseId, documentId);
  }

  @Delete(':name/documents/:documentId')
  @HttpCode(204)
  async deleteDocument(
    @Caller() caller: Principal,
    @Param('name', KnowledgeBaseNameParam) name: string,
    @Param('documentId', DocumentIdParam) documentId: string,
    @Req() req: FastifyRequest,
  ) {
    const base = await this.bases.get(caller.tenant, name);
    const deleted = await this.documents.find(caller.tenant, documentId);
    if (!(await this.documents.delete(caller.tenant, base.baseId, documentId)))
      throw new SpindleError('not_found', `no document ${documentId}`);
    // A pending document's bytes were still needed; now nothing may name them.
    if (deleted) await this.files.releaseBytes(deleted.sha256);
    await this.audit.record(caller, req, { action: 'knowledge_document.deleted', target: { kind: 'knowledge_document', id: documentId } });
  }

  /** Tries a search from the API: what a retrieve node would get. */
  @Post(':name/query')
  @HttpCode(200)
  async search(
    @Caller() caller: Principal,
    @Param('name', KnowledgeBaseNameParam) name: string,
    @Body() body: unknown,
  ): Promise<RetrieveAnswer> {
    await this.bases.get(caller.tenant, name);
    const asked = parseBody(knowledgeQueryBodySchema, body ?? {});
    return query<RetrieveAnswer>(this.bus, 'dispatcher', 'retrieve', { tenant: caller.tenant, knowledgeBase: name, ...asked }, 30_000);
  }
}

interface Upload {
  bytes: Uint8Array;
  mediaType: string;
  source: string;
  metadata: Record<string, unknown>;
}

function tooLarge(maxBytes: number): SpindleError {
  return new SpindleError('payload_too_large', `the document is larger than ${maxBytes} bytes`);
}

/** A document sent as itself (text, Markdown or PDF), named by `?source=`. */
function rawDocument(bytes: Uint8Array, contentType: string | undefined, sourceParam: unknown): Upload {
  const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (!isDocumentMediaType(mediaType))
    throw new SpindleError('unsupported_media_type', 'documents are text/plain, text/markdown, application/pdf or JSON');
  const source = typeof sourceParam === 'string' ? sourceParam : '';
  if (source.length < 1 || source.length > 1_024) {
    throw new SpindleError('validation_failed', 'a raw document needs ?source= (1-1024 characters)', {
      issues: [{ field: 'source', message: 'required, 1-1024 characters' }],
    });
  }
  return { bytes, mediaType, source, metadata: {} };
}

/** A text document sent as JSON `{ source, text, metadata }`. */
function jsonDocument(body: unknown): Upload {
  refuseNulCharacters(body);
  const doc = parseBody(documentJsonBodySchema, body ?? {});
  const metadata: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  Object.assign(metadata, doc.metadata ?? {});
  const markdown = /\.(md|markdown)$/i.test(doc.source);
  return { bytes: Buffer.from(doc.text, 'utf8'), mediaType: markdown ? 'text/markdown' : 'text/plain', source: doc.source, metadata };
}

function randomId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(26), (b) => alphabet[b % alphabet.length]).join('');
}

function documentLocation(name: string, id: string): string {
  return `/v1/knowledge-bases/${name}/documents/${id}`;
}
