import type * as Cel from '@marcbachmann/cel-js' with { 'resolution-mode': 'import' };
import { chargeSteps, iterations, readSteps, refuse, REGEX_WORK_PER_STEP, textSteps } from './expression-meter';
import {
  MAX_DURATION_TEXT_LENGTH,
  MAX_EXPRESSION_CALL_ARGUMENTS,
  MAX_EXPRESSION_DEPTH,
  MAX_EXPRESSION_LITERAL_ENTRIES,
  MAX_EXPRESSION_NODES,
} from './expression-limits';
import { compileLinearRegex } from './linear-regex';

// cel-js ships only as ESM; Node >= 20.19 loads it with require(), which TypeScript's CommonJS
// output cannot express as an import yet.
const { Environment, parse } = require('@marcbachmann/cel-js') as typeof Cel;

/**
 * Functions the rewritten syntax tree calls instead of (or around) built-ins; cel-js refuses a
 * second overload of a built-in such as `string.matches(string)`. A definition may not name them.
 */
export const internal = {
  /** `text.matches(re)` on the linear-time engine, charged program size × text length. */
  matches: '__spindle_matches',
  /** `duration(text)` with the text bounded first (cel-js parses it in cubic time). */
  duration: '__spindle_duration',
  /** `text.lastIndexOf(s)`: V8 searches backwards in text × search time; charged so. */
  lastIndexOf: '__spindle_last_index_of',
  /** Wraps an operand: charged the size of the value read, returned unchanged. */
  read: '__spindle_read',
  /** Wraps the operand of `size()`: charged a string's length only (a list's size is constant time). */
  readText: '__spindle_read_text',
  /** Wraps what a comprehension ranges over: charged its length × the nodes of the body. */
  range: '__spindle_range',
} as const;

export const INTERNAL_PREFIX = '__spindle';

/** The public name of an internal function, for error messages. */
export const publicName: Record<string, string> = {
  [internal.matches]: 'matches',
  [internal.duration]: 'duration',
  [internal.lastIndexOf]: 'lastIndexOf',
};

// The built-ins that the functions above delegate to, in cel-js's own (unrewritten) environment.
const builtinDuration = parse('duration(text)');
const builtinLastIndexOf = parse('text.lastIndexOf(search)');
const builtinLastIndexOfFrom = parse('text.lastIndexOf(search, from)');

export const celEnvironment = new Environment({
  unlistedVariablesAreDyn: true,
  limits: {
    maxAstNodes: MAX_EXPRESSION_NODES,
    maxDepth: MAX_EXPRESSION_DEPTH,
    maxListElements: MAX_EXPRESSION_LITERAL_ENTRIES,
    maxMapEntries: MAX_EXPRESSION_LITERAL_ENTRIES,
    maxCallArguments: MAX_EXPRESSION_CALL_ARGUMENTS,
  },
})
  .registerFunction(`string.${internal.matches}(string): bool`, (text: string, pattern: string) => {
    const regex = compileLinearRegex(pattern, 're2');
    chargeSteps((regex.programSize * text.length) / REGEX_WORK_PER_STEP, () => `matching ${text.length} characters against "${pattern}"`);
    return regex.test(text);
  })
  .registerFunction(`${internal.duration}(string): google.protobuf.Duration`, (text: string) => {
    if (text.length > MAX_DURATION_TEXT_LENGTH)
      refuse(`duration() of a ${text.length}-character text is over MAX_DURATION_TEXT_LENGTH (${MAX_DURATION_TEXT_LENGTH})`);
    return builtinDuration({ text });
  })
  .registerFunction(`string.${internal.lastIndexOf}(string): int`, (text: string, search: string) => {
    chargeLastIndexOf(text, search);
    return builtinLastIndexOf({ text, search });
  })
  .registerFunction(`string.${internal.lastIndexOf}(string, int): int`, (text: string, search: string, from: bigint) => {
    chargeLastIndexOf(text, search);
    return builtinLastIndexOfFrom({ text, search, from });
  })
  .registerFunction(`${internal.read}(dyn): dyn`, (value: unknown) => {
    chargeSteps(readSteps(value), readingValue);
    return value;
  })
  .registerFunction(`${internal.readText}(dyn): dyn`, (value: unknown) => {
    chargeSteps(textSteps(value), readingText);
    return value;
  })
  .registerFunction(`${internal.range}(dyn, int): dyn`, (value: unknown, bodyNodes: bigint) => {
    const count = iterations(value);
    chargeSteps(count * Number(bodyNodes), () => `in a comprehension over ${count} items`);
    return value;
  });

const readingValue = () => 'reading a large value';
const readingText = () => 'reading a long text';

function chargeLastIndexOf(text: string, search: string): void {
  // V8's lastIndexOf compares naively: ~0.25 ns per text × search character pair, ~400 pairs a step.
  chargeSteps((text.length * Math.max(search.length, 1)) / 400 + readSteps(text), () => `searching ${text.length} characters backwards`);
}
