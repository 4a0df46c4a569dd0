import { RE2JS } from 're2js';

/**
 * The browser's copy of the engine's pattern engine for JSON Schema (libs/engine/src/expressions/
 * linear-regex.ts, which the console cannot import): RE2 instead of the backtracking RegExp, so a
 * form's pattern cannot freeze the tab while a person types. Same dialect, flags and limits as the
 * engine; a pattern it refuses makes the schema uncompilable here, which leaves the check to the gateway.
 */
const MAX_PATTERN_LENGTH = 512;
const MAX_PROGRAM_SIZE = 1_000;
const MAX_WORK = 400_000;
const FLAGS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL, u: 0 };

/** ajv's `code.regExp` hook: called as `regExp(pattern, 'u')`; its result's `test` is called on each string. */
export const linearRegExp = Object.assign(
  (pattern: string, flags: string) => {
    if (pattern.length > MAX_PATTERN_LENGTH) throw new Error(`pattern over ${MAX_PATTERN_LENGTH} characters`);
    let bits = 0;
    for (const flag of flags) {
      if (!Object.hasOwn(FLAGS, flag)) throw new Error(`regular expression flag "${flag}" is not supported`);
      bits |= FLAGS[flag];
    }
    const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern), bits);
    const size = compiled.re2().numberOfInstructions() as number;
    if (size > MAX_PROGRAM_SIZE) throw new Error(`pattern compiles to ${size} instructions`);
    return {
      test(text: string): boolean {
        if (text.length * size > MAX_WORK) throw new Error(`${text.length} characters are too long to check against pattern "${pattern}"`);
        return compiled.test(text);
      },
      toString: () => `/${pattern}/${flags}`,
    };
  },
  { code: 'linearRegExp' },
);
