import { SpindleError } from '@spindle/contracts';

export const PROVIDERS = ['openai', 'anthropic', 'compatible', 'offline'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** Splits `provider:model`; the model part may itself contain `:` (e.g. Ollama's `llama3:8b`). */
export function parseModelRef(ref: string): { provider: ProviderName; modelId: string } {
  const i = ref.indexOf(':');
  const provider = i > 0 ? ref.slice(0, i) : '';
  const modelId = i > 0 ? ref.slice(i + 1) : '';
  if (provider === '' || modelId.trim() === '') {
    throw new SpindleError(
      'unknown_model',
      `Model '${ref}' is not of the form 'provider:model' (e.g. 'openai:gpt-4o-mini', 'offline:echo')`,
    );
  }
  if (!isProvider(provider)) {
    throw new SpindleError('unknown_model', `Unknown model provider '${provider}' in '${ref}'; known providers: ${PROVIDERS.join(', ')}`);
  }
  return { provider, modelId };
}

export function isProvider(name: string): name is ProviderName {
  return (PROVIDERS as readonly string[]).includes(name);
}
