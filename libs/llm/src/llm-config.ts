import { parseModelPrices, type ModelPrice } from './model-prices';

/**
 * Provider configuration as a plain typed object. Nothing in libs/ reads the process environment: the app
 * edge builds this once (usually with `llmConfigFromEnv` over its environment) and passes it in, so tests
 * and multi-tenant setups can hold several configs side by side.
 */
export interface LlmConfig {
  /** `openai:<model>`; requires `apiKey`. `baseUrl` defaults to https://api.openai.com/v1. */
  openai?: { apiKey?: string; baseUrl?: string };
  /** `anthropic:<model>`; requires `apiKey`. `baseUrl` defaults to https://api.anthropic.com/v1. */
  anthropic?: { apiKey?: string; baseUrl?: string };
  /** `compatible:<model>`: any OpenAI-compatible chat-completions server (Ollama, vLLM, llama.cpp). */
  compatible?: { baseUrl?: string; apiKey?: string };
  /** `offline:echo`: no network. `chunkDelayMs` slows streaming down for demos (default 0). */
  offline?: { chunkDelayMs?: number };
  /**
   * USD per million tokens by `provider:model` (or `provider:*`), overriding and extending the
   * default list-price table in model-prices.ts. A model with no price gets no `costUsd`.
   */
  prices?: Record<string, ModelPrice>;
  /** A JSON price table file whose entries win over `prices`; re-read when it changes (no restart). */
  pricesFile?: string;
}

/** The environment variables `llmConfigFromEnv` reads; error messages name them. */
export const LLM_ENV_VARS = {
  openaiApiKey: 'OPENAI_API_KEY',
  openaiBaseUrl: 'OPENAI_BASE_URL',
  anthropicApiKey: 'ANTHROPIC_API_KEY',
  compatibleBaseUrl: 'OPENAI_COMPATIBLE_BASE_URL',
  compatibleApiKey: 'OPENAI_COMPATIBLE_API_KEY',
  offlineChunkDelayMs: 'SPINDLE_OFFLINE_CHUNK_DELAY_MS',
  /** JSON: `{ "openai:gpt-4o": { "inputPerMTok": 2.5, "outputPerMTok": 10 } }`. */
  modelPrices: 'SPINDLE_MODEL_PRICES',
  /** Path of a JSON price table, re-read when it changes. */
  modelPricesFile: 'SPINDLE_MODEL_PRICES_FILE',
} as const;

/**
 * Builds an `LlmConfig` from an environment map given as a parameter (never the process environment
 * directly). Empty strings count as unset, so `FOO=` in a .env file does not configure a key.
 */
export function llmConfigFromEnv(env: Record<string, string | undefined>): LlmConfig {
  const get = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v === undefined || v === '' ? undefined : v;
  };
  const delay = get(LLM_ENV_VARS.offlineChunkDelayMs);
  const chunkDelayMs = delay === undefined ? undefined : Number(delay);
  if (chunkDelayMs !== undefined && (!Number.isFinite(chunkDelayMs) || chunkDelayMs < 0)) {
    throw new Error(`${LLM_ENV_VARS.offlineChunkDelayMs} must be a non-negative number of milliseconds, got '${delay}'`);
  }
  const pricesJson = get(LLM_ENV_VARS.modelPrices);
  const prices = pricesJson === undefined ? undefined : parseModelPrices(pricesJson, LLM_ENV_VARS.modelPrices);
  return {
    openai: { apiKey: get(LLM_ENV_VARS.openaiApiKey), baseUrl: get(LLM_ENV_VARS.openaiBaseUrl) },
    anthropic: { apiKey: get(LLM_ENV_VARS.anthropicApiKey) },
    compatible: { baseUrl: get(LLM_ENV_VARS.compatibleBaseUrl), apiKey: get(LLM_ENV_VARS.compatibleApiKey) },
    offline: { chunkDelayMs },
    ...(prices !== undefined ? { prices } : {}),
    ...(get(LLM_ENV_VARS.modelPricesFile) !== undefined ? { pricesFile: get(LLM_ENV_VARS.modelPricesFile) } : {}),
  };
}
