import { DEFAULT_MODEL_PRICES, costUsd, createPriceLookup, parseModelPrices, validateModelPrices } from './model-prices';

describe('model prices', () => {
  it('prices well-known models from the default table and local providers at 0', () => {
    const priceOf = createPriceLookup();

    expect(priceOf('openai:gpt-4o')).toEqual({ inputPerMTok: 2.5, outputPerMTok: 10 });
    expect(priceOf('anthropic:claude-sonnet-4-5')).toEqual({ inputPerMTok: 3, outputPerMTok: 15 });
    expect(priceOf('offline:echo')).toEqual({ inputPerMTok: 0, outputPerMTok: 0 });
    expect(priceOf('compatible:llama3:8b')).toEqual({ inputPerMTok: 0, outputPerMTok: 0 });
    expect(priceOf('openai:some-future-model')).toBeUndefined();
  });

  it('lets configured prices override and extend the table, exact keys beating provider:*', () => {
    const priceOf = createPriceLookup({
      'openai:gpt-4o': { inputPerMTok: 1, outputPerMTok: 2 },
      'openai:*': { inputPerMTok: 9, outputPerMTok: 9 },
      'compatible:paid-model': { inputPerMTok: 0.5, outputPerMTok: 1 },
    });

    expect(priceOf('openai:gpt-4o')).toEqual({ inputPerMTok: 1, outputPerMTok: 2 });
    expect(priceOf('openai:gpt-4o-mini')).toEqual(DEFAULT_MODEL_PRICES['openai:gpt-4o-mini']);
    expect(priceOf('openai:some-future-model')).toEqual({ inputPerMTok: 9, outputPerMTok: 9 });
    expect(priceOf('compatible:paid-model')).toEqual({ inputPerMTok: 0.5, outputPerMTok: 1 });
    expect(priceOf('compatible:free-model')).toEqual({ inputPerMTok: 0, outputPerMTok: 0 });
  });

  it('computes USD per million tokens, rounded to 1e-9', () => {
    // gpt-4o: 1,234 in at $2.50/M + 567 out at $10/M = 0.003085 + 0.00567
    expect(costUsd({ inputTokens: 1234, outputTokens: 567 }, DEFAULT_MODEL_PRICES['openai:gpt-4o'])).toBe(0.008755);
    expect(costUsd({ inputTokens: 1, outputTokens: 0 }, { inputPerMTok: 0.0001, outputPerMTok: 0 })).toBe(0);
    expect(costUsd({ inputTokens: 7, outputTokens: 3 }, { inputPerMTok: 0.15, outputPerMTok: 0.6 })).toBe(0.00000285);
  });

  it('rejects malformed tables, naming the source and the bad entry', () => {
    expect(() => parseModelPrices('{not json', 'SRC')).toThrow(/^SRC is not valid JSON/);
    expect(() => parseModelPrices('[]', 'SRC')).toThrow(/^SRC must be a JSON object/);
    expect(() => validateModelPrices({ 'gpt-4o': { inputPerMTok: 1, outputPerMTok: 1 } }, 'SRC')).toThrow(
      /SRC: 'gpt-4o' is not a 'provider:model'/,
    );
    expect(() => validateModelPrices({ 'opneai:gpt-4o': { inputPerMTok: 1, outputPerMTok: 1 } }, 'SRC')).toThrow(/known provider/);
    expect(() => validateModelPrices({ 'openai:gpt-4o': { inputPerMTok: -1, outputPerMTok: 1 } }, 'SRC')).toThrow(
      /'openai:gpt-4o' needs non-negative numbers/,
    );
    expect(() => validateModelPrices({ 'openai:gpt-4o': { inputPerMTok: '1', outputPerMTok: 1 } }, 'SRC')).toThrow(
      /needs non-negative numbers/,
    );
    expect(() => createPriceLookup({ 'openai:x': { inputPerMTok: Number.NaN, outputPerMTok: 1 } })).toThrow(/LlmConfig\.prices/);
  });
});
