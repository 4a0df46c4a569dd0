import type { EmbeddingModelV3 } from '@ai-sdk/provider';
import { SpindleError } from '@spindle/contracts';
import { embedMany } from 'ai';

/**
 * Embeds texts through the AI SDK and checks every vector against the base's dimensions before
 * anything is written; vectors are L2-normalised so a dot product is their cosine.
 * A provider's failure is `provider_error` (retryable).
 */
export async function embedTexts(model: EmbeddingModelV3, texts: string[], dimensions: number, signal?: AbortSignal): Promise<number[][]> {
  if (texts.length === 0) return [];
  let embeddings: number[][];
  try {
    ({ embeddings } = await embedMany({ model, values: texts, maxRetries: 2, abortSignal: signal }));
  } catch (e) {
    throw new SpindleError('provider_error', `the embedding model ${model.provider}:${model.modelId} failed: ${(e as Error).message}`, {
      cause: e,
    });
  }
  const wrong = embeddings.find((v) => v.length !== dimensions);
  if (wrong) {
    throw new SpindleError(
      'embedding_dimension_mismatch',
      `${model.provider}:${model.modelId} gives vectors of ${wrong.length} dimensions; the knowledge base has ${dimensions}`,
    );
  }
  return embeddings.map(normalise);
}

export function normalise(v: readonly number[]): number[] {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  return norm > 0 ? v.map((x) => x / norm) : [...v];
}
