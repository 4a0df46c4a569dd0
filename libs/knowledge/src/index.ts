export { chunkText, type TextChunk, type ChunkingOptions } from './chunk-text';
export { extractText, isDocumentMediaType, DOCUMENT_MEDIA_TYPES, type DocumentMediaType } from './extract-text';
export { extractPdfText } from './pdf-text';
export { tinyPdf } from './tiny-pdf';
export { embedTexts, normalise } from './embed-texts';
export { hybridScore, textQuery, candidateCount, VECTOR_WEIGHT, TEXT_WEIGHT } from './hybrid-score';
export { KnowledgeBaseRepository, type BaseVersion } from './knowledge-base.repository';
export {
  KnowledgeDocumentRepository,
  MAX_INGEST_ATTEMPTS,
  toDocument,
  type NewDocument,
  type EmbeddedChunk,
} from './knowledge-document.repository';
export { searchChunks, type ChunkSearch } from './chunk-search';
export { KnowledgeService, type KnowledgeServiceOptions } from './knowledge.service';
export { versionChanges } from './version-change';
export { hasVectorColumn, createVersionIndex } from './vector-index';
export { startPgliteVector } from './pglite-vector';
export { VectorCache, nearest } from './vector-cache';
export { vectorBytes } from './knowledge-document.repository';
