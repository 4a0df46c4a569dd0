import { readFileSync, statSync } from 'node:fs';
import type { Usage } from '@spindle/contracts';
import { isProvider } from './model-ref';

/** USD per million tokens, with where the figure comes from. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
  /** Input tokens read from the provider's prompt cache; billed as input when absent. */
  cachedInputPerMTok?: number;
  /** Input tokens written to the provider's prompt cache; billed as input when absent. */
  cacheWritePerMTok?: number;
  /** Reasoning tokens (part of the output); billed as output when absent. */
  reasoningPerMTok?: number;
  /** Where the figures were read (a URL or a contract name), and when (`YYYY-MM` or a date). */
  source?: string;
  asOf?: string;
}

/** Keyed by `provider:model`, or `provider:*` for every model of a provider without its own entry. */
export type ModelPrices = Record<string, ModelPrice>;

/** The date the list prices below were read; they change, so deployments override them in config. */
export const DEFAULT_MODEL_PRICES_AS_OF = '2025-10';

const OPENAI = { source: 'https://openai.com/api/pricing/', asOf: DEFAULT_MODEL_PRICES_AS_OF };
const ANTHROPIC = { source: 'https://docs.claude.com/en/docs/about-claude/pricing', asOf: DEFAULT_MODEL_PRICES_AS_OF };
const LOCAL = { source: 'local model: no charge', asOf: DEFAULT_MODEL_PRICES_AS_OF };

/**
 * List prices as of the table's date, with the cached-input (and, for Anthropic, 5-minute
 * cache-write) rates; override in config (`SPINDLE_MODEL_PRICES`, or a file with
 * `SPINDLE_MODEL_PRICES_FILE` that is re-read when it changes). Batch pricing is not modelled.
 * Dated snapshots (e.g. `gpt-4o-2024-08-06`) are separate ids and unpriced unless configured.
 * `offline` and `compatible` (local servers) are free by default; a paid compatible endpoint gets
 * its price from config.
 */
export const DEFAULT_MODEL_PRICES: Readonly<ModelPrices> = Object.freeze({
  'openai:gpt-4o': { inputPerMTok: 2.5, cachedInputPerMTok: 1.25, outputPerMTok: 10, ...OPENAI },
  'openai:gpt-4o-mini': { inputPerMTok: 0.15, cachedInputPerMTok: 0.075, outputPerMTok: 0.6, ...OPENAI },
  'openai:gpt-4.1': { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8, ...OPENAI },
  'openai:gpt-4.1-mini': { inputPerMTok: 0.4, cachedInputPerMTok: 0.1, outputPerMTok: 1.6, ...OPENAI },
  'openai:gpt-4.1-nano': { inputPerMTok: 0.1, cachedInputPerMTok: 0.025, outputPerMTok: 0.4, ...OPENAI },
  'anthropic:claude-sonnet-4-5': { inputPerMTok: 3, cachedInputPerMTok: 0.3, cacheWritePerMTok: 3.75, outputPerMTok: 15, ...ANTHROPIC },
  'anthropic:claude-haiku-4-5': { inputPerMTok: 1, cachedInputPerMTok: 0.1, cacheWritePerMTok: 1.25, outputPerMTok: 5, ...ANTHROPIC },
  'anthropic:claude-3-5-haiku-latest': {
    inputPerMTok: 0.8,
    cachedInputPerMTok: 0.08,
    cacheWritePerMTok: 1,
    outputPerMTok: 4,
    ...ANTHROPIC,
  },
  'offline:*': { inputPerMTok: 0, outputPerMTok: 0, ...LOCAL },
  'compatible:*': { inputPerMTok: 0, outputPerMTok: 0, ...LOCAL },
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
    out[key] = validatePrice(price, `${source}: '${key}'`);
  }
  return out;
}

const RATES = ['inputPerMTok', 'outputPerMTok', 'cachedInputPerMTok', 'cacheWritePerMTok', 'reasoningPerMTok'] as const;

function validatePrice(value: unknown, where: string): ModelPrice {
  const p = value as Partial<Record<keyof ModelPrice, unknown>> | null;
  const rate = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0 && n < 1e6;
  if (typeof p !== 'object' || p === null || !rate(p.inputPerMTok) || !rate(p.outputPerMTok)) {
    throw new Error(`${where} needs non-negative numbers inputPerMTok and outputPerMTok (USD per million tokens)`);
  }
  const price: ModelPrice = { inputPerMTok: p.inputPerMTok, outputPerMTok: p.outputPerMTok };
  for (const key of RATES) {
    if (p[key] === undefined) continue;
    if (!rate(p[key])) throw new Error(`${where}: ${key} must be a non-negative number (USD per million tokens)`);
    price[key] = p[key];
  }
  for (const key of ['source', 'asOf'] as const) {
    if (p[key] === undefined) continue;
    if (typeof p[key] !== 'string' || p[key].length > 500) throw new Error(`${where}: ${key} must be a string of at most 500 characters`);
    price[key] = p[key];
  }
  return price;
}

/** Parses the JSON text of `SPINDLE_MODEL_PRICES`-style config; errors name `source`. */
export function parseModelPrices(json: string, source: string): ModelPrices {
  return validateModelPrices(parseJson(json, source), source);
}

function parseJson(json: string, source: string): unknown {
  try {
    return JSON.parse(json);
  } catch (e) {
    throw new Error(`${source} is not valid JSON: ${(e as Error).message}`);
  }
}

export interface PriceFileOptions {
  /** A JSON price table (`{ "source"?, "asOf"?, "models": { "provider:model": {…} } }` or the bare map). */
  path: string;
  /** How often the file's modification time is looked at (default 5 s). */
  checkEveryMs?: number;
  /** Told when a changed file cannot be used: the table in use stays as it was. */
  onError?: (error: Error) => void;
  now?: () => number;
}

/**
 * The price of `provider:model`: the file's entries (when one is configured) override configured
 * entries, which override and extend the default table; an exact key beats the provider's
 * `provider:*` entry (from any source). `undefined` means unpriced. The file is read at once (a
 * bad one fails the start) and again whenever it changes, so prices are replaced without a restart.
 */
export function createPriceLookup(configured: ModelPrices = {}, file?: PriceFileOptions): (model: string) => ModelPrice | undefined {
  const base: ModelPrices = { ...DEFAULT_MODEL_PRICES, ...validateModelPrices(configured, 'LlmConfig.prices') };
  let table = base;
  let refresh = () => undefined as void;
  if (file) {
    const now = file.now ?? Date.now;
    let seen = statSync(file.path).mtimeMs;
    let checkedAt = now();
    table = { ...base, ...readPriceFile(file.path) };
    refresh = () => {
      if (now() - checkedAt < (file.checkEveryMs ?? 5_000)) return;
      checkedAt = now();
      try {
        const mtime = statSync(file.path).mtimeMs;
        if (mtime === seen) return;
        seen = mtime;
        table = { ...base, ...readPriceFile(file.path) };
      } catch (e) {
        file.onError?.(e as Error);
      }
    };
  }
  return (model) => {
    refresh();
    const i = model.indexOf(':');
    return table[model] ?? (i > 0 ? table[`${model.slice(0, i)}:*`] : undefined);
  };
}

/** Reads a price file; its top-level `source` and `asOf` apply to every entry that names none. */
export function readPriceFile(path: string): ModelPrices {
  const text = readFileSync(path, 'utf8');
  const parsed = parseJson(text, path) as { models?: unknown; source?: unknown; asOf?: unknown } | null;
  const isWrapped = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && 'models' in parsed;
  const models = validateModelPrices(isWrapped ? parsed.models : parsed, path);
  if (!isWrapped) return models;
  const defaults = validatePrice({ inputPerMTok: 0, outputPerMTok: 0, source: parsed.source, asOf: parsed.asOf }, path);
  return Object.fromEntries(
    Object.entries(models).map(([key, price]) => [
      key,
      { ...price, source: price.source ?? defaults.source, asOf: price.asOf ?? defaults.asOf },
    ]),
  );
}

/**
 * USD for one call's usage, rounded to 1e-9 so float noise does not show up in events. Cached
 * reads, cache writes and reasoning tokens are parts of the input and output counts; each part is
 * billed at its own rate where the table has one, the rest at the plain input or output rate.
 */
export function costUsd(
  usage: Pick<Usage, 'inputTokens' | 'outputTokens' | 'cachedInputTokens' | 'cacheWriteTokens' | 'reasoningTokens'>,
  price: ModelPrice,
): number {
  const cached = usage.cachedInputTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const reasoning = usage.reasoningTokens ?? 0;
  const plainInput = Math.max(0, usage.inputTokens - cached - written);
  const plainOutput = Math.max(0, usage.outputTokens - reasoning);
  const raw =
    (plainInput * price.inputPerMTok +
      cached * (price.cachedInputPerMTok ?? price.inputPerMTok) +
      written * (price.cacheWritePerMTok ?? price.inputPerMTok) +
      plainOutput * price.outputPerMTok +
      reasoning * (price.reasoningPerMTok ?? price.outputPerMTok)) /
    1_000_000;
  return Math.round(raw * 1e9) / 1e9;
}
