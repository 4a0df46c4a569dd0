import { z } from 'zod';

/**
 * What a retriever returns and the log records: the chunks that may reach a prompt, each with
 * where it came from, its score and its size in tokens.
 */
export const retrievedChunkSchema = z.object({
  id: z.string().min(1).max(256),
  /** The document it was cut from (its name or URL, as ingested). */
  source: z.string().max(1024),
  score: z.number(),
  tokens: z.number().int().nonnegative(),
  text: z.string(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type RetrievedChunk = z.infer<typeof retrievedChunkSchema>;

/** A retrieve node's output under its `output_key`; prompt assembly knows these values are retrieved chunks. */
export const retrievalResultSchema = z.object({
  query: z.string(),
  knowledgeBase: z.string(),
  chunks: z.array(retrievedChunkSchema),
});
export type RetrievalResult = z.infer<typeof retrievalResultSchema>;

export function isRetrievalResult(value: unknown): value is RetrievalResult {
  return retrievalResultSchema.safeParse(value).success;
}

/** Where a prompt was cut to fit its budget: retrieved chunks, a tool's result, a state field or the conversation. */
export const contextCutKindSchema = z.enum(['retrieval', 'tool_result', 'state_field', 'history']);
export type ContextCutKind = z.infer<typeof contextCutKindSchema>;
export const truncationStrategySchema = z.enum(['sentence', 'hard']);
export type TruncationStrategy = z.infer<typeof truncationStrategySchema>;
