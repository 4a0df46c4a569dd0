import { RE2JS } from 're2js';

/**
 * The one regular-expression engine of the engine: RE2 (the re2js port), which matches in time
 * linear in the text, where JavaScript's backtracking `RegExp` can take hours on `^(a+)+$`.
 * CEL `matches`, JSON Schema `pattern`/`patternProperties` (engine, plugin inputs) use it.
 * Linear is not yet cheap: a match costs up to ~18 ns per program instruction per character
 * (measured on a pattern that defeats the DFA cache), so program size and text are bounded too.
 */

/** Longest pattern: compiling costs up to ~10 µs a character (Unicode classes), so 512 stays under ~5 ms. */
export const MAX_REGEX_PATTERN_LENGTH = 512;
/** Largest compiled program: `(a|aa){100}` is 11 characters but 600 instructions, and matching cost scales with it. */
export const MAX_REGEX_PROGRAM_SIZE = 1_000;
/** Most work of one match, in instructions × characters: about 7 ms at the worst measured 17.6 ns each. */
export const MAX_REGEX_WORK = 400_000;

/** CEL specifies RE2 syntax; JSON Schema specifies ECMA-262, translated to RE2 (what RE2 lacks is refused). */
export type RegexDialect = 're2' | 'ecma262';

export interface LinearRegex {
  readonly pattern: string;
  /** Instructions of the compiled program: a match costs at most about this many steps a character. */
  readonly programSize: number;
  /** Whether the pattern matches somewhere in `text`; throws `RegexLimitError` past `MAX_REGEX_WORK`. */
  test(text: string): boolean;
  /** Distinct per pattern and flags: ajv caches compiled patterns under this key. */
  toString(): string;
}

/** The pattern is not valid in its dialect, needs a feature RE2 lacks, or is over a size limit. */
export class RegexPatternError extends Error {}

/** A match would do more than `MAX_REGEX_WORK`. */
export class RegexLimitError extends Error {}

const FLAGS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL, u: 0 };
const CACHE_SIZE = 256;
const cache = new Map<string, LinearRegex | RegexPatternError>();

/** Compiles (or takes from a small cache) a pattern; throws `RegexPatternError` naming the problem. */
export function compileLinearRegex(pattern: string, dialect: RegexDialect, flags = ''): LinearRegex {
  const key = `${dialect}\u0000${flags}\u0000${pattern}`;
  let entry = cache.get(key);
  if (entry) {
    cache.delete(key); // re-inserted below: the Map's order is the eviction order
  } else {
    entry = compileUncached(pattern, dialect, flags);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  }
  cache.set(key, entry);
  if (entry instanceof RegexPatternError) throw entry;
  return entry;
}

/** Why a pattern is refused, or undefined when it compiles. */
export function linearRegexProblem(pattern: string, dialect: RegexDialect): string | undefined {
  try {
    compileLinearRegex(pattern, dialect);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * ajv's `code.regExp` hook: ajv calls it as `regExp(pattern, 'u')` while compiling a schema, caches
 * the result under its `toString()`, and its generated code calls `.test(data)` on it. `code` would
 * name the function in standalone output, which the engine does not generate.
 */
export const ajvLinearRegExp = Object.assign((pattern: string, flags: string) => compileLinearRegex(pattern, 'ecma262', flags), {
  code: 'ajvLinearRegExp',
});

function compileUncached(pattern: string, dialect: RegexDialect, flags: string): LinearRegex | RegexPatternError {
  const shown = pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern;
  if (pattern.length > MAX_REGEX_PATTERN_LENGTH) {
    return new RegexPatternError(
      `pattern "${shown}" is ${pattern.length} characters long, over MAX_REGEX_PATTERN_LENGTH (${MAX_REGEX_PATTERN_LENGTH})`,
    );
  }
  const bits = flagBits(flags);
  if (bits === undefined) return new RegexPatternError(`regular expression flags "${flags}" are not supported (only i, m, s, u)`);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(dialect === 'ecma262' ? RE2JS.translateRegExp(pattern) : pattern, bits);
  } catch (e) {
    const reason = (e as Error).message.replace(/^error parsing regexp: /, '');
    return new RegexPatternError(
      `pattern "${shown}" is not a valid RE2 pattern (lookaround and backreferences cannot run in linear time): ${reason}`,
    );
  }
  const programSize = compiled.re2().numberOfInstructions() as number;
  if (programSize > MAX_REGEX_PROGRAM_SIZE) {
    return new RegexPatternError(
      `pattern "${shown}" compiles to ${programSize} instructions, over MAX_REGEX_PROGRAM_SIZE (${MAX_REGEX_PROGRAM_SIZE})`,
    );
  }
  return {
    pattern,
    programSize,
    test(text: string): boolean {
      if (text.length * programSize > MAX_REGEX_WORK) {
        throw new RegexLimitError(
          `matching ${text.length} characters against pattern "${shown}" (${programSize} instructions) ` +
            `is over MAX_REGEX_WORK (${MAX_REGEX_WORK} instructions × characters)`,
        );
      }
      return compiled.test(text);
    },
    toString: () => `/${pattern}/${flags}`,
  };
}

function flagBits(flags: string): number | undefined {
  let bits = 0;
  for (const flag of flags) {
    if (!Object.hasOwn(FLAGS, flag)) return undefined;
    bits |= FLAGS[flag];
  }
  return bits;
}
