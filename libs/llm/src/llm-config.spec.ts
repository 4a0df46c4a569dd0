import { llmConfigFromEnv } from './llm-config';

describe('llmConfigFromEnv', () => {
  it('reads every provider setting from the given map', () => {
    const config = llmConfigFromEnv({
      OPENAI_API_KEY: 'sk-openai',
      OPENAI_BASE_URL: 'http://proxy/v1',
      ANTHROPIC_API_KEY: 'sk-ant',
      OPENAI_COMPATIBLE_BASE_URL: 'http://localhost:11434/v1',
      OPENAI_COMPATIBLE_API_KEY: 'ollama',
      SPINDLE_OFFLINE_CHUNK_DELAY_MS: '25',
    });

    expect(config).toEqual({
      openai: { apiKey: 'sk-openai', baseUrl: 'http://proxy/v1' },
      anthropic: { apiKey: 'sk-ant' },
      compatible: { baseUrl: 'http://localhost:11434/v1', apiKey: 'ollama' },
      offline: { chunkDelayMs: 25 },
    });
  });

  it('treats missing and empty values as unset', () => {
    const config = llmConfigFromEnv({ OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '   ' });

    expect(config.openai?.apiKey).toBeUndefined();
    expect(config.anthropic?.apiKey).toBeUndefined();
    expect(config.compatible?.baseUrl).toBeUndefined();
    expect(config.offline?.chunkDelayMs).toBeUndefined();
  });

  it('rejects a chunk delay that is not a non-negative number', () => {
    expect(() => llmConfigFromEnv({ SPINDLE_OFFLINE_CHUNK_DELAY_MS: 'soon' })).toThrow(/SPINDLE_OFFLINE_CHUNK_DELAY_MS/);
    expect(() => llmConfigFromEnv({ SPINDLE_OFFLINE_CHUNK_DELAY_MS: '-1' })).toThrow(/non-negative/);
  });

  it('reads SPINDLE_MODEL_PRICES as a JSON price table', () => {
    const config = llmConfigFromEnv({
      SPINDLE_MODEL_PRICES:
        '{ "compatible:qwen2.5": { "inputPerMTok": 0.2, "outputPerMTok": 0.6 }, "openai:*": { "inputPerMTok": 5, "outputPerMTok": 15 } }',
    });

    expect(config.prices).toEqual({
      'compatible:qwen2.5': { inputPerMTok: 0.2, outputPerMTok: 0.6 },
      'openai:*': { inputPerMTok: 5, outputPerMTok: 15 },
    });
    expect(llmConfigFromEnv({ SPINDLE_MODEL_PRICES: ' ' }).prices).toBeUndefined();
  });

  it.each([
    ['{"openai:gpt-4o": ', /SPINDLE_MODEL_PRICES is not valid JSON/],
    ['[1, 2]', /SPINDLE_MODEL_PRICES must be a JSON object/],
    ['{"gpt-4o": {"inputPerMTok": 1, "outputPerMTok": 2}}', /SPINDLE_MODEL_PRICES: 'gpt-4o' is not a 'provider:model'/],
    ['{"openai:gpt-4o": {"inputPerMTok": 1}}', /SPINDLE_MODEL_PRICES: 'openai:gpt-4o' needs non-negative numbers/],
  ])('rejects the malformed SPINDLE_MODEL_PRICES %p with a clear error', (value, message) => {
    expect(() => llmConfigFromEnv({ SPINDLE_MODEL_PRICES: value })).toThrow(message);
  });
});
