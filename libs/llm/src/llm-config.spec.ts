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
});
