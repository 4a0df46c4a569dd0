'use strict';
// Spindle plugin: arithmetic for models, which are bad at it. A small recursive-descent parser
// (never eval/Function), so the expression can only ever be arithmetic.
// Its PublicError's message is shown to the model and the run log (any other error is redacted).
const { defineFunction, definePlugin, defineTool, PublicError } = require('@spindle/plugin');
const { z } = require('zod');

const maxDepth = 64; // bounds recursion, so "((((…" cannot overflow the stack

/** Evaluates + - * / ^ and parentheses over decimal numbers; `^` is right-associative. */
function evaluate(expression) {
  const tokens = tokenize(expression);
  let pos = 0;
  let depth = 0;
  const peek = () => tokens[pos];
  const fail = (what) => {
    const token = peek();
    throw new PublicError(
      token
        ? `unexpected "${token.text}" at position ${token.at + 1}${what ? `, expected ${what}` : ''}`
        : `unexpected end of expression${what ? `, expected ${what}` : ''}`,
    );
  };
  const nested = (parse) => {
    if (++depth > maxDepth) throw new PublicError(`expression nests deeper than ${maxDepth} levels`);
    const value = parse();
    depth--;
    return value;
  };

  // sum := product (("+" | "-") product)*
  function sum() {
    let value = product();
    while (peek() && (peek().text === '+' || peek().text === '-'))
      value = tokens[pos++].text === '+' ? value + product() : value - product();
    return value;
  }
  // product := unary (("*" | "/") unary)*
  function product() {
    let value = unary();
    while (peek() && (peek().text === '*' || peek().text === '/')) {
      const op = tokens[pos++].text;
      const right = unary();
      if (op === '/' && right === 0) throw new PublicError('division by zero');
      value = op === '*' ? value * right : value / right;
    }
    return value;
  }
  // unary := ("-" | "+") unary | power — so -2^2 is -(2^2), as in mathematics
  function unary() {
    if (peek() && (peek().text === '-' || peek().text === '+')) return tokens[pos++].text === '-' ? -nested(unary) : nested(unary);
    return power();
  }
  // power := primary ("^" unary)?
  function power() {
    const base = primary();
    if (peek() && peek().text === '^') {
      pos++;
      return base ** nested(unary);
    }
    return base;
  }
  // primary := number | "(" sum ")"
  function primary() {
    const token = peek();
    if (token && token.kind === 'number') {
      pos++;
      return token.value;
    }
    if (token && token.text === '(') {
      pos++;
      const value = nested(sum);
      if (!peek() || peek().text !== ')') fail('")"');
      pos++;
      return value;
    }
    return fail('a number or "("');
  }

  const result = sum();
  if (pos < tokens.length) fail('an operator');
  if (!Number.isFinite(result)) throw new PublicError('the result is not a finite number');
  return result;
}

function tokenize(expression) {
  const tokens = [];
  const number = /\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?/y;
  for (let at = 0; at < expression.length;) {
    const ch = expression[at];
    if (/\s/.test(ch)) {
      at++;
    } else if ('+-*/^()'.includes(ch)) {
      tokens.push({ kind: 'op', text: ch, at });
      at++;
    } else {
      number.lastIndex = at;
      const match = number.exec(expression);
      if (!match) throw new PublicError(`unexpected "${ch}" at position ${at + 1}: only numbers, + - * / ^ and parentheses are allowed`);
      tokens.push({ kind: 'number', text: match[0], value: Number(match[0]), at });
      at = number.lastIndex;
    }
  }
  if (tokens.length === 0) throw new PublicError('the expression is empty');
  return tokens;
}

const expressionInput = z.object({
  expression: z.string().min(1).max(1000).describe('Arithmetic with numbers, + - * / ^ and parentheses, e.g. "(2 + 3) * 4 ^ 2"'),
});

module.exports = definePlugin({
  name: 'calculator',
  version: '1.0.0',
  tools: {
    calculator: defineTool({
      description:
        'Evaluates an arithmetic expression exactly as written and returns the number. Supports + - * / ^ (power) and parentheses.',
      input: expressionInput,
      output: z.object({ expression: z.string(), result: z.number() }),
      run: ({ expression }) => ({ expression, result: evaluate(expression) }),
    }),
  },
  // The same evaluator as a `function` node: `{ expression, into? }` → `{ [into ?? "result"]: number }`.
  functions: {
    calculate: defineFunction({
      description: 'Evaluates args.expression and writes the number to state[args.into ?? "result"].',
      input: expressionInput.extend({ into: z.string().min(1).default('result') }),
      // Arithmetic on its arguments and nothing else: it need not wait for the run's log.
      pure: true,
      run: ({ expression, into }) => ({ [into]: evaluate(expression) }),
    }),
  },
});
