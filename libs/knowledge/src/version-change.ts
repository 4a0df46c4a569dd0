import type { Chunking, KnowledgeBaseSave } from '@spindle/contracts';

/**
 * Whether a save needs a new version: chunks cut or embedded differently cannot be searched
 * together, so a change of model, dimensions or chunking starts a new version (its documents are
 * ingested again); a new description alone does not.
 */
export function versionChanges(
  chunking: Chunking,
  current: { embedding_model: string; dimensions: number },
  save: Pick<KnowledgeBaseSave, 'embeddingModel' | 'dimensions' | 'chunking'>,
): boolean {
  return (
    current.embedding_model !== save.embeddingModel ||
    current.dimensions !== save.dimensions ||
    chunking.size !== save.chunking.size ||
    chunking.overlap !== save.chunking.overlap
  );
}
