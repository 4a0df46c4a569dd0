import { envOptional, envText, parseEnv, type Env } from '@spindle/contracts';
import { z } from 'zod';
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

const envSchema = z.object({
  [LLM_ENV_VARS.openaiApiKey]: envText(),
  [LLM_ENV_VARS.openaiBaseUrl]: envText(),
  [LLM_ENV_VARS.anthropicApiKey]: envText(),
  [LLM_ENV_VARS.compatibleBaseUrl]: envText(),
  [LLM_ENV_VARS.compatibleApiKey]: envText(),
  [LLM_ENV_VARS.offlineChunkDelayMs]: envOptional(
    z.coerce
      .number({ error: 'must be a non-negative number of milliseconds' })
      .nonnegative({ error: 'must be a non-negative number of milliseconds' }),
  ),
  [LLM_ENV_VARS.modelPrices]: envText(),
  [LLM_ENV_VARS.modelPricesFile]: envText(),
});

/**
 * Builds an `LlmConfig` from an environment map given as a parameter (never the process environment
 * directly), with the one env parser every service uses; `service` names the process in a refusal.
 */
export function llmConfigFromEnv(env: Env, service = 'runner'): LlmConfig {
  const e = parseEnv(envSchema, env, service);
  const pricesJson = e[LLM_ENV_VARS.modelPrices];
  const prices = pricesJson === undefined ? undefined : parseModelPrices(pricesJson, LLM_ENV_VARS.modelPrices);
  const pricesFile = e[LLM_ENV_VARS.modelPricesFile];
  return {
    openai: { apiKey: e[LLM_ENV_VARS.openaiApiKey], baseUrl: e[LLM_ENV_VARS.openaiBaseUrl] },
    anthropic: { apiKey: e[LLM_ENV_VARS.anthropicApiKey] },
    compatible: { baseUrl: e[LLM_ENV_VARS.compatibleBaseUrl], apiKey: e[LLM_ENV_VARS.compatibleApiKey] },
    offline: { chunkDelayMs: e[LLM_ENV_VARS.offlineChunkDelayMs] },
    ...(prices !== undefined ? { prices } : {}),
    ...(pricesFile !== undefined ? { pricesFile } : {}),
  };
}
