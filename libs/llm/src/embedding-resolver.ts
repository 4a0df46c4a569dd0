import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { EmbeddingModelV3 } from '@ai-sdk/provider';
import { SpindleError } from '@spindle/contracts';
import { LLM_ENV_VARS, type LlmConfig } from './llm-config';
import { parseModelRef } from './model-ref';
import { OFFLINE_HASH_EMBEDDING_PATTERN, OfflineHashEmbeddingModel } from './offline-hash-embedding.model';

const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export type EmbeddingModelResolver = (ref: string) => EmbeddingModelV3;

/**
 * Turns `provider:model` into an AI SDK embedding model: `openai:<id>`, `compatible:<id>` (any
 * OpenAI-compatible `/embeddings`, e.g. Ollama) or `offline:hash-<dims>`. Anthropic has no
 * embeddings API. A model that cannot be built is `unknown_model`.
 */
export function createEmbeddingModelResolver(config: LlmConfig): EmbeddingModelResolver {
  return (ref) => {
    const { provider, modelId } = parseModelRef(ref);
    switch (provider) {
      case 'openai': {
        const apiKey = config.openai?.apiKey;
        if (!apiKey) throw new SpindleError('unknown_model', `Model provider 'openai' is not configured: set ${LLM_ENV_VARS.openaiApiKey}`);
        return createOpenAI({ apiKey, baseURL: config.openai?.baseUrl ?? OPENAI_DEFAULT_BASE_URL }).embedding(modelId);
      }
      case 'compatible': {
        const baseURL = config.compatible?.baseUrl;
        if (!baseURL)
          throw new SpindleError('unknown_model', `Model provider 'compatible' is not configured: set ${LLM_ENV_VARS.compatibleBaseUrl}`);
        return createOpenAICompatible({ name: 'compatible', baseURL, apiKey: config.compatible?.apiKey }).embeddingModel(modelId);
      }
      case 'offline': {
        const m = OFFLINE_HASH_EMBEDDING_PATTERN.exec(modelId);
        const dims = m ? Number(m[1]) : 0;
        if (dims < 8 || dims > 4_096)
          throw new SpindleError(
            'unknown_model',
            `Unknown offline embedding model 'offline:${modelId}'; there is 'offline:hash-<8..4096>'`,
          );
        return new OfflineHashEmbeddingModel(dims);
      }
      case 'anthropic':
        throw new SpindleError('unknown_model', `'${ref}': Anthropic has no embedding models`);
    }
  };
}
