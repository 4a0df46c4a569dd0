// Public API of @spindle/llm: the ModelPort adapter, its config, prices, and the offline model.
export { createModelPort } from './model-router';
export type { FileReader } from './message-mapper';
export type { ModelPortHooks } from './model-router';
export { llmConfigFromEnv, LLM_ENV_VARS, type LlmConfig } from './llm-config';
export { parseModelRef, PROVIDERS, type ProviderName } from './model-ref';
export {
  DEFAULT_MODEL_PRICES,
  DEFAULT_MODEL_PRICES_AS_OF,
  createPriceLookup,
  costUsd,
  parseModelPrices,
  validateModelPrices,
  type ModelPrice,
  type ModelPrices,
} from './model-prices';
export { OfflineEchoModel, OFFLINE_ECHO_MODEL_ID, type OfflineEchoOptions } from './offline-echo.model';
export { OfflineScriptModel, OFFLINE_SCRIPT_MODEL_ID } from './offline-script.model';
export { createEmbeddingModelResolver, type EmbeddingModelResolver } from './embedding-resolver';
export { OfflineHashEmbeddingModel, OFFLINE_HASH_EMBEDDING_PATTERN, normalisedWords } from './offline-hash-embedding.model';
