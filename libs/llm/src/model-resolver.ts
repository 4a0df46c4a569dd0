import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { SpindleError } from '@spindle/contracts';
import type { ModelScript } from '@spindle/engine';
import { LLM_ENV_VARS, type LlmConfig } from './llm-config';
import { parseModelRef, type ProviderName } from './model-ref';
import { OFFLINE_ECHO_MODEL_ID, OfflineEchoModel } from './offline-echo.model';
import { OFFLINE_SCRIPT_MODEL_ID, OfflineScriptModel } from './offline-script.model';

// Passed explicitly: without a baseURL the SDK providers fall back to reading
// OPENAI_BASE_URL / ANTHROPIC_BASE_URL from the process environment themselves, which libs/ must not do.
const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com/v1';

/** `script` is what `offline:script` says (the node's `script`); every other model ignores it. */
export type ModelResolver = (ref: string, script?: ModelScript) => LanguageModelV3;
type ModelFactory = (modelId: string, script?: ModelScript) => LanguageModelV3;

function notConfigured(provider: ProviderName, envVar: string): SpindleError {
  return new SpindleError('unknown_model', `Model provider '${provider}' is not configured: set ${envVar}`);
}

/**
 * Turns `provider:model` into an AI SDK language model. Provider instances are built lazily and
 * cached, so a missing key only fails the models that need it, and each call reuses one client.
 * Configuration problems are `unknown_model` (not retryable): retrying cannot fix them.
 */
export function createModelResolver(config: LlmConfig): ModelResolver {
  const cache = new Map<ProviderName, ModelFactory>();

  const factory = (provider: ProviderName): ModelFactory => {
    switch (provider) {
      case 'openai': {
        const apiKey = config.openai?.apiKey;
        if (!apiKey) throw notConfigured(provider, LLM_ENV_VARS.openaiApiKey);
        const openai = createOpenAI({ apiKey, baseURL: config.openai?.baseUrl ?? OPENAI_DEFAULT_BASE_URL });
        // `openai(id)` means the Responses API in @ai-sdk/openai v3; `.chat` keeps the
        // chat-completions protocol, which OpenAI and every OPENAI_BASE_URL-style proxy speak.
        return (id) => openai.chat(id);
      }
      case 'anthropic': {
        const apiKey = config.anthropic?.apiKey;
        if (!apiKey) throw notConfigured(provider, LLM_ENV_VARS.anthropicApiKey);
        const anthropic = createAnthropic({ apiKey, baseURL: config.anthropic?.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL });
        return (id) => anthropic(id);
      }
      case 'compatible': {
        const baseURL = config.compatible?.baseUrl;
        if (!baseURL) throw notConfigured(provider, LLM_ENV_VARS.compatibleBaseUrl);
        // includeUsage sends `stream_options.include_usage`, without which servers send no
        // token counts for streamed replies; the key is optional (a local Ollama needs none).
        const compatible = createOpenAICompatible({ name: 'compatible', baseURL, apiKey: config.compatible?.apiKey, includeUsage: true });
        return (id) => compatible.chatModel(id);
      }
      case 'offline': {
        const chunkDelayMs = config.offline?.chunkDelayMs;
        const echo = new OfflineEchoModel({ chunkDelayMs });
        return (id, script) => {
          if (id === OFFLINE_ECHO_MODEL_ID) return echo;
          if (id !== OFFLINE_SCRIPT_MODEL_ID)
            throw new SpindleError(
              'unknown_model',
              `Unknown offline model 'offline:${id}'; ` +
                `there are 'offline:${OFFLINE_ECHO_MODEL_ID}' and 'offline:${OFFLINE_SCRIPT_MODEL_ID}'`,
            );
          // Definitions are checked at save, so this is a caller that skipped validation.
          if (script === undefined) throw new SpindleError('unknown_model', `'offline:${OFFLINE_SCRIPT_MODEL_ID}' needs the node's script`);
          return new OfflineScriptModel(script, chunkDelayMs);
        };
      }
    }
  };

  return (ref, script) => {
    const { provider, modelId } = parseModelRef(ref);
    let make = cache.get(provider);
    if (make === undefined) {
      make = factory(provider);
      cache.set(provider, make);
    }
    return make(modelId, script);
  };
}
