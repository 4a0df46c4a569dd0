import { MAX_REGEX_WORK } from '../expressions/linear-regex';
import { compileJsonSchema, jsonSchemaProblem } from './json-schema';
import { MAX_JSON_SCHEMA_DEPTH, MAX_JSON_SCHEMA_NODES, MAX_JSON_SCHEMA_PATTERN_CHARACTERS } from './json-schema-limits';

// With JavaScript's RegExp this value takes hours against ^(a+)+$; the tests finishing prove linear time.
const hostile = `${'a'.repeat(40)}!`;

describe('JSON Schema validation with user patterns', () => {
  it('checks a catastrophic pattern in linear time', () => {
    const check = compileJsonSchema({ type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } }, 'data');
    expect(check({ name: hostile })).toEqual({ ok: false, issues: [{ field: 'data.name', message: 'must match pattern "^(a+)+$"' }] });
    expect(check({ name: 'aaaa' })).toMatchObject({ ok: true });
  });

  it('checks patternProperties and propertyNames the same way', () => {
    const check = compileJsonSchema(
      { type: 'object', patternProperties: { '^(a+)+$': { type: 'integer' } }, propertyNames: { pattern: '^(a|aa)+$' } },
      '',
    );
    expect(check({ [hostile]: 'x' }).ok).toBe(false);
    expect(check({ aaaa: 'not an integer' }).ok).toBe(false);
    expect(check({ aaaa: 1 }).ok).toBe(true);
  });

  it('refuses a pattern RE2 cannot run (lookaround, backreferences)', () => {
    expect(jsonSchemaProblem({ type: 'string', pattern: '^(?!admin)' })).toMatch(/not a valid RE2 pattern/);
    expect(jsonSchemaProblem({ type: 'string', pattern: '(a)\\1' })).toMatch(/not a valid RE2 pattern/);
  });

  it('refuses a string too long to match within MAX_REGEX_WORK, naming why', () => {
    const check = compileJsonSchema({ type: 'string', pattern: '(?:a|b)*a(?:a|b){30}$' }, 'answer');
    const result = check('ab'.repeat(MAX_REGEX_WORK));
    expect(result).toMatchObject({ ok: false, issues: [{ field: 'answer', message: expect.stringMatching(/MAX_REGEX_WORK/) }] });
  });

  it('refuses schemas over their size, depth and pattern bounds', () => {
    const wide = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: MAX_JSON_SCHEMA_NODES }, (_, i) => [`p${i}`, { type: 'string' }])),
    };
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < MAX_JSON_SCHEMA_DEPTH; i++) deep = { type: 'array', items: deep };
    const patterns = {
      anyOf: Array.from({ length: 5 }, () => ({ type: 'string', pattern: 'x'.repeat(MAX_JSON_SCHEMA_PATTERN_CHARACTERS / 4) })),
    };
    expect(jsonSchemaProblem(wide)).toMatch(/MAX_JSON_SCHEMA_NODES/);
    expect(jsonSchemaProblem(deep)).toMatch(/MAX_JSON_SCHEMA_DEPTH/);
    expect(jsonSchemaProblem(patterns)).toMatch(/MAX_JSON_SCHEMA_PATTERN_CHARACTERS/);
  });

  it('checks uniqueItems in one pass (ajv compares every pair: 50M deep comparisons for 10,000 objects)', () => {
    const check = compileJsonSchema({ type: 'array', uniqueItems: true }, 'items');
    const distinct = Array.from({ length: 10_000 }, (_, i) => ({ id: i, tags: ['a', i % 7] }));
    expect(check(distinct).ok).toBe(true);
    expect(check([...distinct, { tags: ['a', 3], id: 3 }])).toEqual({
      ok: false,
      issues: [{ field: 'items', message: 'must NOT have duplicate items (items ## 3 and 10000 are identical)' }],
    });
    expect(check([1, '1', [1], { a: 1 }]).ok).toBe(true);
  });

  it('compiles a schema once by content, even as new objects with the same $id', () => {
    const schema = () => ({ $id: 'https://example.com/answer', type: 'object', required: ['x'] });
    expect(compileJsonSchema(schema(), '')({}).ok).toBe(false);
    expect(compileJsonSchema(schema(), '')({ x: 1 }).ok).toBe(true);
    expect(compileJsonSchema({ ...schema(), required: ['y'] }, '')({ x: 1 }).ok).toBe(false);
  });
});
