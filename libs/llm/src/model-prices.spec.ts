import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MODEL_PRICES, costUsd, createPriceLookup, parseModelPrices, readPriceFile, validateModelPrices } from './model-prices';

describe('model prices', () => {
  it('prices well-known models from the default table and local providers at 0', () => {
    const priceOf = createPriceLookup();

    expect(priceOf('openai:gpt-4o')).toEqual({
      inputPerMTok: 2.5,
      cachedInputPerMTok: 1.25,
      outputPerMTok: 10,
      source: 'https://openai.com/api/pricing/',
      asOf: '2025-10',
    });
    expect(priceOf('anthropic:claude-sonnet-4-5')).toMatchObject({ inputPerMTok: 3, cachedInputPerMTok: 0.3, cacheWritePerMTok: 3.75 });
    expect(priceOf('offline:echo')).toMatchObject({ inputPerMTok: 0, outputPerMTok: 0 });
    expect(priceOf('compatible:llama3:8b')).toMatchObject({ inputPerMTok: 0, outputPerMTok: 0 });
    // Every default entry says where its figures come from and when they were read.
    for (const price of Object.values(DEFAULT_MODEL_PRICES)) expect(price).toMatchObject({ source: expect.any(String), asOf: '2025-10' });
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
    expect(priceOf('compatible:free-model')).toMatchObject({ inputPerMTok: 0, outputPerMTok: 0 });
  });

  it('computes USD per million tokens, rounded to 1e-9', () => {
    // gpt-4o: 1,234 in at $2.50/M + 567 out at $10/M = 0.003085 + 0.00567
    expect(costUsd({ inputTokens: 1234, outputTokens: 567 }, DEFAULT_MODEL_PRICES['openai:gpt-4o'])).toBe(0.008755);
    expect(costUsd({ inputTokens: 1, outputTokens: 0 }, { inputPerMTok: 0.0001, outputPerMTok: 0 })).toBe(0);
    expect(costUsd({ inputTokens: 7, outputTokens: 3 }, { inputPerMTok: 0.15, outputPerMTok: 0.6 })).toBe(0.00000285);
  });

  it('bills cached reads, cache writes and reasoning at their own rates, and at the plain rate where the table has none', () => {
    const price = { inputPerMTok: 3, cachedInputPerMTok: 0.3, cacheWritePerMTok: 3.75, outputPerMTok: 15, reasoningPerMTok: 20 };
    const usage = {
      inputTokens: 1_000_000,
      cachedInputTokens: 600_000,
      cacheWriteTokens: 100_000,
      outputTokens: 100_000,
      reasoningTokens: 40_000,
    };
    // 300k plain in at $3 + 600k cached at $0.30 + 100k written at $3.75 + 60k text out at $15 + 40k reasoning at $20
    expect(costUsd(usage, price)).toBe(3.155);
    // Without the detail rates the same usage costs what the plain rates say.
    expect(costUsd(usage, { inputPerMTok: 3, outputPerMTok: 15 })).toBe(3 + 1.5);
  });

  it('reads a price file at once and again when it changes, keeping the last good table when a change is bad', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'prices-')), 'prices.json');
    const write = (body: unknown, mtimeS: number) => {
      writeFileSync(path, typeof body === 'string' ? body : JSON.stringify(body));
      utimesSync(path, mtimeS, mtimeS);
    };
    write({ source: 'contract 42', asOf: '2026-11-01', models: { 'openai:gpt-4o': { inputPerMTok: 1, outputPerMTok: 2 } } }, 1_000);
    let now = 0;
    const errors: Error[] = [];
    const priceOf = createPriceLookup({}, { path, checkEveryMs: 1_000, now: () => now, onError: (e) => errors.push(e) });
    expect(priceOf('openai:gpt-4o')).toEqual({ inputPerMTok: 1, outputPerMTok: 2, source: 'contract 42', asOf: '2026-11-01' });
    expect(priceOf('openai:gpt-4o-mini')).toEqual(DEFAULT_MODEL_PRICES['openai:gpt-4o-mini']);

    write({ 'openai:gpt-4o': { inputPerMTok: 5, outputPerMTok: 6 } }, 2_000);
    expect(priceOf('openai:gpt-4o')).toMatchObject({ inputPerMTok: 1 }); // not looked at again yet
    now = 1_000;
    expect(priceOf('openai:gpt-4o')).toEqual({ inputPerMTok: 5, outputPerMTok: 6 });

    write('{ "openai:gpt-4o": ', 3_000);
    now = 2_000;
    expect(priceOf('openai:gpt-4o')).toEqual({ inputPerMTok: 5, outputPerMTok: 6 });
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/prices\.json is not valid JSON/)]);
  });

  it('refuses a price file that is not a table at the start', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'prices-')), 'prices.json');
    writeFileSync(path, JSON.stringify({ models: { 'openai:gpt-4o': { inputPerMTok: 1, outputPerMTok: 2, cachedInputPerMTok: -1 } } }));
    expect(() => readPriceFile(path)).toThrow(/cachedInputPerMTok must be a non-negative number/);
    expect(() => createPriceLookup({}, { path: `${path}.missing` })).toThrow(/ENOENT/);
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
