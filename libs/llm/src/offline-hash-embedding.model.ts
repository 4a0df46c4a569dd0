import type { EmbeddingModelV3, EmbeddingModelV3CallOptions, EmbeddingModelV3Result } from '@ai-sdk/provider';
import { createHash } from 'node:crypto';

/** `offline:hash-<dims>`: 8..4096 dimensions. */
export const OFFLINE_HASH_EMBEDDING_PATTERN = /^hash-(\d{1,4})$/;

/**
 * A deterministic embedding model for tests and the offline demo: feature hashing of normalised
 * words (and their adjacent pairs) into `dimensions` buckets, signed by a second hash bit, then
 * L2-normalised. Texts sharing words have a positive cosine; the same text always gives the same
 * vector, on every machine, with no network.
 */
export class OfflineHashEmbeddingModel implements EmbeddingModelV3 {
  readonly specificationVersion = 'v3' as const;
  readonly provider = 'offline';
  readonly maxEmbeddingsPerCall = 2_048;
  readonly supportsParallelCalls = true;
  readonly modelId: string;

  constructor(readonly dimensions: number) {
    this.modelId = `hash-${dimensions}`;
  }

  async doEmbed(options: EmbeddingModelV3CallOptions): Promise<EmbeddingModelV3Result> {
    options.abortSignal?.throwIfAborted();
    let tokens = 0;
    const embeddings = options.values.map((text) => {
      const words = normalisedWords(text);
      tokens += words.length;
      return hashEmbedding(words, this.dimensions);
    });
    return { embeddings, usage: { tokens }, warnings: [] };
  }
}

export function normalisedWords(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

function hashEmbedding(words: readonly string[], dimensions: number): number[] {
  const v = new Float64Array(dimensions);
  const add = (feature: string, weight: number) => {
    const h = createHash('sha256').update(feature).digest();
    const bucket = h.readUInt32BE(0) % dimensions;
    v[bucket] += (h[4] & 1 ? 1 : -1) * weight;
  };
  words.forEach((w, i) => {
    add(w, 1);
    if (i > 0) add(`${words[i - 1]} ${w}`, 0.5);
  });
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  return Array.from(v, (x) => (norm > 0 ? x / norm : 0));
}
