import { RE2JS } from 're2js';

/** What a secret is replaced with. */
export const SECRET_MASK = '[masked]';

/**
 * Credentials of well-known shapes, found wherever they appear in a text: provider API keys
 * (`sk-…`, `sk-ant-…`), the token of an `Authorization: Bearer …`, the secret part of Spindle API keys,
 * AWS access key ids, GitHub tokens, Slack tokens and JWTs. Written for JavaScript's engine and
 * safe on it: no nested quantifiers, and no class that takes a quote or a backslash, so a match
 * never crosses a JSON string's end.
 */
const BUILT_IN = [
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}/.source,
  // The two kept prefixes are captured, not looked behind: a lookbehind is tried at every position
  // of every text (20 times slower on a long one; a top frame of the runner, which scans each event).
  /\b([Bb]earer\s{1,8})[A-Za-z0-9._~+/=-]{16,}/.source,
  /\b(spk_[a-z0-9]{16}_)[A-Za-z0-9_-]{43}/.source,
  /\bAKIA[0-9A-Z]{16}\b/.source,
  /\bgh[pousr]_[A-Za-z0-9]{30,}/.source,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/.source,
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/.source,
];

/** A match masked, the bearer's or Spindle key's prefix (captured) kept. */
function keepPrefix(_match: string, bearer: string | undefined, spindleKey: string | undefined): string {
  return (bearer ?? spindleKey ?? '') + SECRET_MASK;
}

/** Operators' own patterns: RE2 syntax (linear time), bounded in number and length. */
export const MAX_SECRET_PATTERNS = 32;
export const MAX_SECRET_PATTERN_LENGTH = 256;
/** A configured secret value shorter than this is not masked (it would mask ordinary words). */
const MIN_LITERAL_LENGTH = 8;

export interface SecretMaskingConfig {
  /** RE2 patterns of the deployment's own secrets (`SPINDLE_SECRET_PATTERNS`). */
  patterns?: readonly string[];
  /** Exact values known to be secret: the provider keys the process holds. */
  literals?: readonly (string | undefined)[];
}

/**
 * Masks secrets in what Spindle writes down (run events, log lines, token deltas): values that
 * match a built-in credential shape, an operator's pattern or a known secret value, and the
 * values of fields a workflow definition names as secret. A text without any is returned as it
 * is, at the cost of one scan; only a text with a hit is taken apart.
 */
export class SecretMasker {
  private readonly builtIn: RegExp;
  private readonly configured: RE2JS[];

  constructor(config: SecretMaskingConfig = {}) {
    const literals = (config.literals ?? []).filter((l): l is string => typeof l === 'string' && l.length >= MIN_LITERAL_LENGTH);
    this.builtIn = new RegExp([...BUILT_IN, ...literals.map(escapeRegExp)].join('|'), 'g');
    this.configured = compileSecretPatterns(config.patterns ?? []);
  }

  /** The text with every secret in it replaced by `[masked]`. */
  maskText(text: string): string {
    let masked = text.replace(this.builtIn, keepPrefix);
    for (const pattern of this.configured) masked = pattern.matcher(masked).replaceAll(SECRET_MASK, true);
    return masked;
  }

  /**
   * A JSON text with its secrets masked, still JSON: each string value is masked on its own when
   * the text holds a secret (an operator's pattern could otherwise match across a value's end).
   */
  maskJsonText(json: string): string {
    if (this.maskText(json) === json) return json;
    return JSON.stringify(this.maskValue(JSON.parse(json) as unknown));
  }

  /** A copy of the value with every string in it masked (the value itself when nothing is). */
  maskValue<T>(value: T): T {
    return mapStrings(value, (s) => this.maskText(s)) as T;
  }
}

/**
 * A copy of `value` with the value of every field named in `fields`, at any depth, masked (the
 * value itself when no such field holds anything). For the fields a definition names as secret.
 */
export function maskSecretFields<T>(value: T, fields: ReadonlySet<string>): T {
  if (fields.size === 0) return value;
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) {
      const items = v.map(walk);
      return items.some((item, i) => item !== v[i]) ? items : v;
    }
    if (typeof v !== 'object' || v === null) return v;
    return mapFields(v, (key, field) => (fields.has(key) && field !== null && field !== undefined ? SECRET_MASK : walk(field)));
  };
  return walk(value) as T;
}

/** Compiles operators' patterns (RE2: matching is linear in the text); throws naming the bad one. */
export function compileSecretPatterns(patterns: readonly string[]): RE2JS[] {
  if (patterns.length > MAX_SECRET_PATTERNS) throw new Error(`at most ${MAX_SECRET_PATTERNS} secret patterns, got ${patterns.length}`);
  return patterns.map((pattern, i) => {
    if (typeof pattern !== 'string' || pattern.length === 0 || pattern.length > MAX_SECRET_PATTERN_LENGTH) {
      throw new Error(`secret pattern ${i} must be a string of 1 to ${MAX_SECRET_PATTERN_LENGTH} characters`);
    }
    try {
      return RE2JS.compile(pattern);
    } catch (e) {
      throw new Error(`secret pattern ${i} is not an RE2 pattern: ${(e as Error).message}`);
    }
  });
}

let processMasker = new SecretMasker();

/** Sets what the process masks (its services call this once at start, from their environment). */
export function configureSecretMasking(config: SecretMaskingConfig): SecretMasker {
  processMasker = new SecretMasker(config);
  return processMasker;
}

/** The process's masker: the built-in shapes, and what `configureSecretMasking` added. */
export function secretMasker(): SecretMasker {
  return processMasker;
}

function mapStrings(value: unknown, map: (s: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) {
    const items = value.map((v) => mapStrings(v, map));
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  return mapFields(value, (_, field) => mapStrings(field, map));
}

/** The object itself when `map` changes no field, else a copy (built with defined properties: a `__proto__` key stays a key). */
function mapFields(value: object, map: (key: string, field: unknown) => unknown): object {
  const entries = Object.entries(value);
  const mapped = entries.map(([key, field]) => [key, map(key, field)] as const);
  return mapped.some(([, field], i) => field !== entries[i][1]) ? Object.fromEntries(mapped) : value;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
