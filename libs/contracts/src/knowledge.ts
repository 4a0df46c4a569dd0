import { z } from 'zod';
import { tenantIdSchema } from './identity';
import { retrievedChunkSchema } from './retrieval';

/** A knowledge base's name: unique per tenant, the retrieve node's `knowledgeBase`. */
export const knowledgeBaseNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/, 'must be a knowledge base name (lowercase letters, digits, _ . -, max 64)');

/** Document ids: `doc_` and 26 lowercase letters or digits. */
export const DOCUMENT_ID_PATTERN = /^doc_[a-z0-9]{26}$/;

/** "provider:model" of an embedding model, e.g. `offline:hash-256` or `openai:text-embedding-3-small`. */
export const embeddingModelRefSchema = z
  .string()
  .max(200)
  .regex(/^[a-z][a-z0-9-]*:.+$/, 'must be "provider:model", e.g. "offline:hash-256"');

export const chunkingSchema = z
  .strictObject({
    /** Tokens per chunk (cl100k/o200k tokenizer). */
    size: z.number().int().min(32).max(8_192).default(400),
    overlap: z.number().int().min(0).max(2_048).default(40),
  })
  .refine((c) => c.overlap < c.size, { message: 'overlap must be smaller than size', path: ['overlap'] });
export type Chunking = z.infer<typeof chunkingSchema>;

/** Metadata a search keeps: chunks carrying each key with that value. */
export const metadataFilterSchema = z
  .record(z.string().min(1).max(64), z.union([z.string().max(1024), z.number(), z.boolean()]))
  .refine((f) => Object.keys(f).length <= 16, 'at most 16 keys');
export type MetadataFilter = z.infer<typeof metadataFilterSchema>;

/** `PUT /v1/knowledge-bases/{name}`: a change of model, dimensions or chunking makes a new version. */
export const knowledgeBaseSaveSchema = z.strictObject({
  embeddingModel: embeddingModelRefSchema,
  dimensions: z.number().int().min(8).max(4_096),
  chunking: chunkingSchema.default({ size: 400, overlap: 40 }),
  description: z.string().max(2_000).optional(),
});
export type KnowledgeBaseSave = z.infer<typeof knowledgeBaseSaveSchema>;

const timestamp = z.string().describe('An ISO 8601 timestamp.');

export const knowledgeBaseSchema = z.object({
  name: z.string(),
  version: z.number().int().positive(),
  embeddingModel: z.string(),
  dimensions: z.number().int(),
  chunking: z.object({ size: z.number().int(), overlap: z.number().int() }),
  description: z.string().nullable(),
  documents: z.number().int().nonnegative(),
  chunks: z.number().int().nonnegative(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type KnowledgeBase = z.infer<typeof knowledgeBaseSchema>;

export const documentStatusSchema = z.enum(['pending', 'ready', 'failed']);
export type DocumentStatus = z.infer<typeof documentStatusSchema>;

export const knowledgeDocumentSchema = z.object({
  documentId: z.string(),
  source: z.string(),
  mediaType: z.string(),
  bytes: z.number().int().nonnegative(),
  sha256: z.string(),
  /** The base version its chunks were embedded for. */
  version: z.number().int().positive(),
  status: documentStatusSchema,
  chunks: z.number().int().nonnegative(),
  tokens: z.number().int().nonnegative(),
  metadata: z.record(z.string(), z.unknown()),
  /** Why ingestion failed: a stable error code. */
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  createdAt: timestamp,
  ingestedAt: timestamp.nullable(),
});
export type KnowledgeDocument = z.infer<typeof knowledgeDocumentSchema>;

/** `POST /v1/knowledge-bases/{name}/documents` as JSON; raw bodies (text, markdown, PDF) name their `?source=`. */
export const documentJsonBodySchema = z.strictObject({
  source: z.string().min(1).max(1_024),
  text: z.string(),
  metadata: z.record(z.string().min(1).max(64), z.unknown()).optional(),
});

/** `POST /v1/knowledge-bases/{name}/query`. */
export const knowledgeQueryBodySchema = z.strictObject({
  query: z.string().min(1).max(8_000),
  topK: z.number().int().min(1).max(50).default(5),
  minScore: z.number().min(0).max(1).optional(),
  filter: metadataFilterSchema.optional(),
});

/** What the dispatcher is asked: ingest a stored document, or search a base. */
export const ingestDocumentQuerySchema = z.object({ tenant: tenantIdSchema, documentId: z.string().regex(DOCUMENT_ID_PATTERN) });
export const retrieveQuerySchema = z.object({
  tenant: tenantIdSchema,
  knowledgeBase: knowledgeBaseNameSchema,
  query: z.string().min(1).max(8_000),
  topK: z.number().int().min(1).max(50),
  minScore: z.number().min(0).max(1).optional(),
  filter: metadataFilterSchema.optional(),
});
export type RetrieveQuery = z.infer<typeof retrieveQuerySchema>;
export const retrieveAnswerSchema = z.object({
  retriever: z.string(),
  version: z.number().int().positive(),
  chunks: z.array(retrievedChunkSchema),
});
export type RetrieveAnswer = z.infer<typeof retrieveAnswerSchema>;
