import {
  ajvLinearRegExp,
  compileLinearRegex,
  linearRegexProblem,
  MAX_REGEX_PATTERN_LENGTH,
  MAX_REGEX_WORK,
  RegexLimitError,
  RegexPatternError,
} from './linear-regex';

// On a backtracking engine `^(a+)+$` against n a's and a "!" takes 2^n steps: 40 a's is hours.
// These tests finishing at all is the proof that matching is linear.
const hostile = `${'a'.repeat(40)}!`;

describe('the linear-time regex engine', () => {
  it('answers a catastrophic pattern correctly', () => {
    const regex = compileLinearRegex('^(a+)+$', 're2');
    expect(regex.test(hostile)).toBe(false);
    expect(regex.test('a'.repeat(40))).toBe(true);
    expect(compileLinearRegex('(x+x+)+y', 're2').test('x'.repeat(5_000))).toBe(false);
  });

  it('searches anywhere in the text, as CEL matches and JSON Schema pattern do', () => {
    expect(compileLinearRegex('b+', 're2').test('abba')).toBe(true);
    expect(compileLinearRegex('^b', 're2').test('abba')).toBe(false);
  });

  it('refuses what RE2 cannot run in linear time: backreferences and lookaround', () => {
    expect(() => compileLinearRegex('(a)\\1', 're2')).toThrow(RegexPatternError);
    expect(linearRegexProblem('a(?=b)', 'ecma262')).toMatch(/not a valid RE2 pattern/);
    expect(linearRegexProblem('(?<!a)b', 'ecma262')).toMatch(/not a valid RE2 pattern/);
  });

  it('reads JSON Schema (ECMA-262) escapes and named groups', () => {
    expect(compileLinearRegex('^\\u00e9(?<digits>\\d+)$', 'ecma262').test('é12')).toBe(true);
    expect(compileLinearRegex('^\\p{L}+$', 'ecma262', 'u').test('héllo')).toBe(true);
  });

  it('refuses a pattern over the length or program-size limit', () => {
    expect(linearRegexProblem('a'.repeat(MAX_REGEX_PATTERN_LENGTH + 1), 're2')).toMatch(/MAX_REGEX_PATTERN_LENGTH/);
    // 11 characters, 2,400 instructions.
    expect(linearRegexProblem('(a|aa){400}', 're2')).toMatch(/MAX_REGEX_PROGRAM_SIZE/);
  });

  it('refuses a match over MAX_REGEX_WORK instead of running it', () => {
    const regex = compileLinearRegex('(?:a|b)*a(?:a|b){30}$', 're2');
    const text = 'ab'.repeat(Math.ceil(MAX_REGEX_WORK / regex.programSize));
    expect(() => regex.test(text)).toThrow(RegexLimitError);
    expect(() => regex.test(text)).toThrow(/MAX_REGEX_WORK/);
  });

  it('gives ajv what its generated code expects: regExp(pattern, flags).test(data), a distinct key per pattern', () => {
    const regex = ajvLinearRegExp('^a+$', 'u');
    expect(regex.test('aaa')).toBe(true);
    expect(String(regex)).not.toBe(String(ajvLinearRegExp('^b+$', 'u')));
    expect(() => ajvLinearRegExp('a', 'g')).toThrow(/flags/);
  });
});
