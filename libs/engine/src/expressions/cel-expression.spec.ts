import { SpindleError } from '@spindle/contracts';
import { checkExpression, evaluateCondition } from './cel-expression';
import {
  MAX_COMPREHENSION_NESTING,
  MAX_DURATION_TEXT_LENGTH,
  MAX_EXPRESSION_CALL_ARGUMENTS,
  MAX_EXPRESSION_DEPTH,
  MAX_EXPRESSION_LENGTH,
  MAX_EXPRESSION_LITERAL_ENTRIES,
  MAX_EXPRESSION_NODES,
  MAX_EXPRESSION_STEPS,
} from './expression-limits';

/** The `expression_error` message an evaluation fails with. */
function failure(expression: string, state: Record<string, unknown> = {}): string {
  try {
    evaluateCondition(expression, state);
  } catch (e) {
    expect(e).toBeInstanceOf(SpindleError);
    expect((e as SpindleError).code).toBe('expression_error');
    return (e as SpindleError).message;
  }
  throw new Error(`"${expression.slice(0, 60)}" evaluated without an error`);
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('CEL matches', () => {
  it("runs a catastrophic pattern in linear time (backtracking would take hours on 40 a's)", () => {
    expect(evaluateCondition(`"${'a'.repeat(40)}!".matches("^(a+)+$")`, {})).toBe(false);
    expect(evaluateCondition('text.matches("^(a+)+$")', { text: `${'a'.repeat(1_000)}!` })).toBe(false);
    expect(evaluateCondition('text.matches("^(a+)+$")', { text: 'aaaa' })).toBe(true);
  });

  it('takes the pattern from state too', () => {
    expect(evaluateCondition('text.matches(pattern)', { text: 'order-42', pattern: '^order-[0-9]+$' })).toBe(true);
  });

  it('refuses a literal pattern RE2 cannot run, when the definition is checked', () => {
    expect(checkExpression('text.matches("(a)\\\\1")')).toMatch(/invalid matches\(\) pattern .*not a valid RE2 pattern/);
    expect(checkExpression('text.matches("a(?=b)")')).toMatch(/not a valid RE2 pattern/);
  });

  it('fails the node with expression_error for such a pattern from state', () => {
    expect(failure('text.matches(pattern)', { text: 'aa', pattern: '(a)\\1' })).toMatch(/not a valid RE2 pattern/);
  });

  it('keeps the public name in errors', () => {
    expect(failure('n.matches("a")', { n: 1 })).toMatch(/int\.matches\(string\)/);
  });
});

describe('expression limits', () => {
  const nested = (depth: number) => `${'('.repeat(depth)}1${')'.repeat(depth)} == 1`;
  const statics: [string, string, RegExp][] = [
    ['length', `x == "${'a'.repeat(MAX_EXPRESSION_LENGTH)}"`, /MAX_EXPRESSION_LENGTH/],
    ['nodes', `x == ${Array(MAX_EXPRESSION_NODES).fill('1').join(' + ')}`, /MAX_EXPRESSION_NODES/],
    ['depth', nested(MAX_EXPRESSION_DEPTH + 1), /MAX_EXPRESSION_DEPTH/],
    ['list literal', `x in [${range(MAX_EXPRESSION_LITERAL_ENTRIES + 1).join(', ')}]`, /MAX_EXPRESSION_LITERAL_ENTRIES/],
    ['call arguments', `f(${range(MAX_EXPRESSION_CALL_ARGUMENTS + 1).join(', ')})`, /MAX_EXPRESSION_CALL_ARGUMENTS/],
    ['comprehension nesting', `l.all(a, l.all(b, l.exists(c, a + b == c)))`, /MAX_COMPREHENSION_NESTING/],
    ['reserved names', '__spindle_read(x) == 1', /reserved/],
  ];

  it.each(statics)('refuses %s when the definition is checked', (_, expression, message) => {
    expect(checkExpression(expression)).toMatch(message);
  });

  it.each(statics)('refuses %s at run time with expression_error', (_, expression, message) => {
    expect(failure(expression, { x: 1, l: [1, 2] })).toMatch(message);
  });

  it('accepts what stays within them', () => {
    expect(checkExpression(nested(MAX_EXPRESSION_DEPTH - 4))).toBeUndefined();
    expect(checkExpression('l.all(a, l.exists(b, a == b))')).toBeUndefined();
    expect(MAX_COMPREHENSION_NESTING).toBe(2);
  });
});

describe('the step budget', () => {
  const overBudget = new RegExp(`MAX_EXPRESSION_STEPS \\(${MAX_EXPRESSION_STEPS} steps\\)`);

  it('stops nested comprehensions over a large list (N² work)', () => {
    expect(failure('l.all(x, l.all(y, x + y >= 0))', { l: range(2_000) })).toMatch(overBudget);
  });

  it('stops a linear operator repeated in a comprehension (x in l is N² too)', () => {
    expect(failure('l.all(x, x in l)', { l: range(2_000) })).toMatch(overBudget);
  });

  it('is not absorbed by || or && when the other side decides', () => {
    expect(failure('l.all(x, x in l) || true', { l: range(2_000) })).toMatch(overBudget);
    expect(failure('l.all(x, x in l) && false', { l: range(2_000) })).toMatch(overBudget);
  });

  it('stops values that grow with each operation', () => {
    expect(failure(`size(${Array(60).fill('l').join(' + ')}) > 0`, { l: range(1_000) })).toMatch(overBudget);
    let doubling = 'x10';
    for (let i = 10; i > 0; i--) doubling = `cel.bind(x${i}, x${i - 1} + x${i - 1}, ${doubling})`;
    expect(failure(`size(cel.bind(x0, l, ${doubling})) > 0`, { l: range(100) })).toMatch(overBudget);
  });

  it('charges a match by program size × text length', () => {
    expect(failure('text.matches("(?:a|b)*a(?:a|b){30}$")', { text: 'ab'.repeat(50_000) })).toMatch(overBudget);
  });

  it("charges V8's naive lastIndexOf by text × search", () => {
    expect(failure('text.lastIndexOf(search) >= 0', { text: 'a'.repeat(200_000), search: `${'a'.repeat(2_000)}b` })).toMatch(overBudget);
    expect(evaluateCondition('"banana".lastIndexOf("an") == 3', {})).toBe(true);
  });

  it('refuses a duration text cel-js would parse in cubic time', () => {
    expect(failure('duration(d) > duration("1s")', { d: '1'.repeat(10_000) })).toMatch(/MAX_DURATION_TEXT_LENGTH/);
    expect(evaluateCondition('duration(d) > duration("1s")', { d: '1m30s' })).toBe(true);
    expect(MAX_DURATION_TEXT_LENGTH).toBeGreaterThan('-2562047h47m16.854775807s'.length);
  });

  it('charges copying a large state value before copying it', () => {
    expect(failure('size(l) > 0', { l: range(1_000_000) })).toMatch(/copying state/);
  });

  it('leaves ordinary expressions alone', () => {
    const state = {
      count: 2,
      items: [
        { score: 0.9, tags: ['a'] },
        { score: 0.2, tags: [] },
      ],
      text: 'x'.repeat(100_000),
      input: { name: 'Ada' },
    };
    expect(evaluateCondition('count + 1 == 3', state)).toBe(true);
    expect(evaluateCondition('items.exists(i, i.score > 0.8) && items.filter(i, size(i.tags) > 0).size() == 1', state)).toBe(true);
    expect(evaluateCondition('items.map(i, i.score).all(s, s < 1.0)', state)).toBe(true);
    expect(evaluateCondition('has(input.name) && input.name.startsWith("A") && !has(input.age)', state)).toBe(true);
    expect(evaluateCondition('size(text) == 100000 && text.contains("x") && !text.contains("y")', state)).toBe(true);
    expect(evaluateCondition('range.exists(i, i == 30) || size(range) == 4000', { range: range(4_000) })).toBe(true);
  });
});
