/**
 * Bounds on a CEL expression, so that no definition can hold a runner's event loop for more than
 * a few milliseconds. The static ones are refused when a definition is saved (`invalid_definition`)
 * and again before evaluation; the step budget is counted while evaluating (`expression_error`).
 */

/** Longest source: conditions are one-liners, and this bounds the parse before anything else runs. */
export const MAX_EXPRESSION_LENGTH = 2_000;
/** Most syntax-tree nodes: bounds type-checking and one pass of evaluation (cel-js `maxAstNodes`). */
export const MAX_EXPRESSION_NODES = 300;
/** Deepest nesting of sub-expressions: cel-js parses and evaluates recursively (`maxDepth`). */
export const MAX_EXPRESSION_DEPTH = 32;
/** Most elements of a list literal or entries of a map literal (`maxListElements`, `maxMapEntries`). */
export const MAX_EXPRESSION_LITERAL_ENTRIES = 100;
/** Most arguments of one call: no CEL function takes more than three (`maxCallArguments`). */
export const MAX_EXPRESSION_CALL_ARGUMENTS = 8;
/** Comprehensions (`all`, `exists`, `exists_one`, `map`, `filter`) inside another's body: k levels do N^k work. */
export const MAX_COMPREHENSION_NESTING = 2;
/** Longest text `duration()` parses: cel-js parses it with a backtracking pattern, cubic in the length. */
export const MAX_DURATION_TEXT_LENGTH = 64;
/**
 * Steps one evaluation may take. A step is about 100 ns of the slowest operation measured on it:
 * one comprehension-body node per iteration, one list element or 1/8 map entry read by an operator
 * or function, 16 string characters, 4 regex instructions × characters (see expression-meter.ts).
 */
export const MAX_EXPRESSION_STEPS = 50_000;
