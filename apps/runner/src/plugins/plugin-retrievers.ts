import {
  isSpindleError,
  knowledgeBaseNameSchema,
  PublicError,
  retrievedChunkSchema,
  SpindleError,
  type RetrievedChunk,
} from '@spindle/contracts';
import type { RetrievalAnswer, RetrievalRequest, RetrieverPort } from '@spindle/engine';
import { countTokens } from '@spindle/engine';
import { z } from 'zod';
import { callWithPolicy } from './call-policy';
import type { RetrieverDefinition } from '@spindle/plugin';

/** What a plugin's `retrievers` entry is: a search a `retrieve` node names as its `knowledgeBase` (declared in `@spindle/plugin`). */
export type PluginRetrieverDefinition = RetrieverDefinition;

/** What a plugin may answer per chunk: `tokens` is counted when absent, `source` defaults to the retriever's name. */
const pluginChunkSchema = z.object({
  id: z.string().min(1).max(256),
  text: z.string().max(100_000),
  score: z.number().finite(),
  source: z.string().max(1024).optional(),
  tokens: z.number().int().nonnegative().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
const pluginAnswerSchema = z.array(pluginChunkSchema).max(1_000);

const knownKeys = new Set(['description', 'retrieve', 'timeoutMs', 'retry']);

/** Checks one `retrievers` entry at load; the message names the plugin and the entry. */
export function parseRetriever(name: string, value: unknown, where: string): PluginRetrieverDefinition {
  if (!knowledgeBaseNameSchema.safeParse(name).success)
    throw new Error(`${where}: a retriever name is a knowledge base name (a-z, 0-9, _ . -)`);
  if (value === null || typeof value !== 'object' || typeof (value as { retrieve?: unknown }).retrieve !== 'function') {
    throw new Error(`${where} must be an object with a retrieve(request, ctx) method`);
  }
  const unknown = Object.keys(value).filter((k) => !knownKeys.has(k));
  if (unknown.length) throw new Error(`${where} has unknown key(s) ${unknown.map((k) => `"${k}"`).join(', ')}`);
  return value as PluginRetrieverDefinition;
}

/** Plugin retrievers by name, answered like the knowledge service: sorted, `minScore`, `topK`, every chunk checked. */
export class PluginRetrievers {
  constructor(
    private readonly retrievers: ReadonlyMap<string, PluginRetrieverDefinition>,
    private readonly fetch: typeof globalThis.fetch,
  ) {}

  names(): string[] {
    return [...this.retrievers.keys()];
  }

  has(name: string): boolean {
    return this.retrievers.has(name);
  }

  async retrieve(request: RetrievalRequest): Promise<RetrievalAnswer> {
    const def = this.retrievers.get(request.knowledgeBase);
    if (!def) throw new SpindleError('knowledge_base_not_found', `no retriever "${request.knowledgeBase}"`);
    const { signal, knowledgeBase, ...search } = request;
    let raw: unknown;
    try {
      raw = await callWithPolicy({
        signal,
        timeoutMs: def.timeoutMs,
        retry: def.retry,
        timeoutError: (ms) => new SpindleError('retrieval_failed', `retriever "${knowledgeBase}" timed out after ${ms} ms`),
        run: (s, attempt) => def.retrieve(search, { signal: s, attempt, fetch: this.fetch }),
      });
    } catch (e) {
      if (signal.aborted || isSpindleError(e)) throw e;
      // A plugin's PublicError keeps its message; anything else is redacted by the engine.
      throw e instanceof PublicError ? new SpindleError('retrieval_failed', e.message) : e;
    }
    const parsed = pluginAnswerSchema.safeParse(raw);
    if (!parsed.success) throw new SpindleError('retrieval_failed', `retriever "${knowledgeBase}" answered something other than chunks`);
    return { retriever: `plugin:${knowledgeBase}`, chunks: rankChunks(parsed.data, knowledgeBase, search) };
  }
}

export function rankChunks(
  chunks: z.infer<typeof pluginChunkSchema>[],
  source: string,
  search: { topK: number; minScore?: number },
): RetrievedChunk[] {
  return chunks
    .filter((c) => c.score >= (search.minScore ?? -Infinity))
    .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
    .slice(0, search.topK)
    .map((c) =>
      retrievedChunkSchema.parse({
        id: c.id,
        source: c.source ?? source,
        score: c.score,
        tokens: c.tokens ?? countTokens(c.text),
        text: c.text,
        ...(c.metadata ? { metadata: c.metadata } : {}),
      }),
    );
}

/** The runner's retriever: a plugin's where one has the name, else the tenant's knowledge base. */
export function routedRetriever(plugins: PluginRetrievers | undefined, knowledge: RetrieverPort): RetrieverPort {
  return { retrieve: (request) => (plugins?.has(request.knowledgeBase) ? plugins.retrieve(request) : knowledge.retrieve(request)) };
}
