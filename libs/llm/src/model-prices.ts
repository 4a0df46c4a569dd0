import { isProvider } from './model-ref';

/** USD per million tokens. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
}

/** Keyed by `provider:model`, or `provider:*` for every model of a provider without its own entry. */
export type ModelPrices = Record<string, ModelPrice>;

/** The date the list prices below were read; they change, so deployments override them in config. */
export const DEFAULT_MODEL_PRICES_AS_OF = '2025-10';

/**
 * List prices as of the table's date; override in config (`LlmConfig.prices` /
 * `SPINDLE_MODEL_PRICES`). Cached-input discounts and batch pricing are not modelled: the cost is
 * an upper-bound estimate for budgets, not an invoice. Dated snapshots (e.g. `gpt-4o-2024-08-06`)
 * are separate ids and unpriced unless configured. `offline` and `compatible` (local servers) are
 * free by default; a paid compatible endpoint gets its price from config.
 */
export const DEFAULT_MODEL_PRICES: Readonly<ModelPrices> = Object.freeze({
  'openai:gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 },
  'openai:gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6 },
  'openai:gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8 },
  'openai:gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 },
  'openai:gpt-4.1-nano': { inputPerMTok: 0.1, outputPerMTok: 0.4 },
  'anthropic:claude-sonnet-4-5': { inputPerMTok: 3, outputPerMTok: 15 },
  'anthropic:claude-haiku-4-5': { inputPerMTok: 1, outputPerMTok: 5 },
  'anthropic:claude-3-5-haiku-latest': { inputPerMTok: 0.8, outputPerMTok: 4 },
  'offline:*': { inputPerMTok: 0, outputPerMTok: 0 },
  'compatible:*': { inputPerMTok: 0, outputPerMTok: 0 },
});

/**
 * Checks a price table from config (parsed JSON, so anything may arrive) and returns it typed.
 * Throws an Error naming `source` (the env var or config field), so a typo fails at startup instead
 * of silently leaving a model unpriced.
 */
export function validateModelPrices(value: unknown, source: string): ModelPrices {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`${source} must be a JSON object of { "provider:model": { "inputPerMTok": n, "outputPerMTok": n } }`);
  }
  const out: ModelPrices = {};
  for (const [key, price] of Object.entries(value)) {
    const i = key.indexOf(':');
    if (i <= 0 || key.slice(i + 1).trim() === '' || !isProvider(key.slice(0, i))) {
      throw new Error(`${source}: '${key}' is not a 'provider:model' (or 'provider:*') key with a known provider`);
    }
    const p = price as Partial<Record<keyof ModelPrice, unknown>> | null;
    const ok = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
    if (typeof p !== 'object' || p === null || !ok(p.inputPerMTok) || !ok(p.outputPerMTok)) {
      throw new Error(`${source}: '${key}' needs non-negative numbers inputPerMTok and outputPerMTok (USD per million tokens)`);
    }
    out[key] = { inputPerMTok: p.inputPerMTok, outputPerMTok: p.outputPerMTok };
  }
  return out;
}

/** Parses the JSON text of `SPINDLE_MODEL_PRICES`-style config; errors name `source`. */
export function parseModelPrices(json: string, source: string): ModelPrices {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (e) {
    throw new Error(`${source} is not valid JSON: ${(e as Error).message}`);
  }
  return validateModelPrices(value, source);
}

/**
 * The price of `provider:model`: configured entries override and extend the default table; an exact
 * key beats the provider's `provider:*` entry (from either source). `undefined` means unpriced.
 */
export function createPriceLookup(configured: ModelPrices = {}): (model: string) => ModelPrice | undefined {
  const table: ModelPrices = { ...DEFAULT_MODEL_PRICES, ...validateModelPrices(configured, 'LlmConfig.prices') };
  return (model) => {
    const i = model.indexOf(':');
    return table[model] ?? (i > 0 ? table[`${model.slice(0, i)}:*`] : undefined);
  };
}

/** USD for the given token counts, rounded to 1e-9 so float noise does not show up in events. */
export function costUsd(tokens: { inputTokens: number; outputTokens: number }, price: ModelPrice): number {
  const raw = (tokens.inputTokens * price.inputPerMTok + tokens.outputTokens * price.outputPerMTok) / 1_000_000;
  return Math.round(raw * 1e9) / 1e9;
}
