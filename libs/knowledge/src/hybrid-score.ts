import { normalisedWords } from '@spindle/llm';

/**
 * The fused score of a chunk: a weighted sum of its cosine similarity to the query (clamped at 0)
 * and its full-text rank (`ts_rank_cd` normalised to 0..1). A weighted sum, not reciprocal rank
 * fusion, so the score means the same in every search and `minScore` is a threshold a person can
 * pick; vectors lead, words break ties and rescue exact terms the embedding misses.
 */
export const VECTOR_WEIGHT = 0.7;
export const TEXT_WEIGHT = 0.3;

export function hybridScore(cosine: number, textRank: number): number {
  return VECTOR_WEIGHT * Math.max(0, cosine) + TEXT_WEIGHT * Math.min(1, Math.max(0, textRank));
}

/**
 * An OR of the query's words for `to_tsquery('english', …)` (stop words drop out, words are
 * stemmed): a question's words need not all appear. Null without words.
 */
export function textQuery(query: string): string | null {
  const words = [...new Set(normalisedWords(query))].slice(0, 64);
  return words.length ? words.join(' | ') : null;
}

/** How many nearest neighbours to take from the index before fusing: enough for the text side to reorder. */
export function candidateCount(topK: number): number {
  return Math.min(500, Math.max(50, topK * 10));
}
