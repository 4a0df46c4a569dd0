// Public API of @spindle/llm: the ModelPort adapter, its config, and the offline model.
export { createModelPort } from './model-router';
export { llmConfigFromEnv, LLM_ENV_VARS, type LlmConfig } from './llm-config';
export { parseModelRef, PROVIDERS, type ProviderName } from './model-resolver';
export { OfflineEchoModel, OFFLINE_ECHO_MODEL_ID, type OfflineEchoOptions } from './offline-echo.model';
