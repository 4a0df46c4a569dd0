import { describe, expect, it } from 'vitest';
import { sampleOf } from './schema-sample';

describe('sampleOf', () => {
  it('takes what the schema names: default, const, the first enum value or example', () => {
    expect(sampleOf({ type: 'string', default: 'Ada' })).toBe('Ada');
    expect(sampleOf({ const: 3 })).toBe(3);
    expect(sampleOf({ enum: ['fast', 'slow'] })).toBe('fast');
    expect(sampleOf({ type: 'string', examples: ['A-1002'] })).toBe('A-1002');
  });

  it('builds an object of its required properties and those with a default, each the smallest value of its type', () => {
    const schema = {
      type: 'object',
      required: ['name', 'count', 'tags', 'strict'],
      properties: {
        name: { type: 'string', minLength: 2 },
        count: { type: 'integer', minimum: 1 },
        tags: { type: 'array', minItems: 1, items: { enum: ['a', 'b'] } },
        strict: { type: 'boolean' },
        tone: { type: 'string', default: 'friendly' },
        ignored: { type: 'string' },
      },
    };
    expect(sampleOf(schema)).toEqual({ name: 'xx', count: 1, tags: ['a'], strict: false, tone: 'friendly' });
  });

  it('takes the first choice of anyOf/oneOf and a nullable type list by its first type', () => {
    expect(sampleOf({ anyOf: [{ type: 'number', exclusiveMinimum: 0 }, { type: 'null' }] })).toBe(1);
    expect(sampleOf({ type: ['object', 'null'], properties: {} })).toEqual({});
  });

  it('is null for what it cannot read, and stops at a depth', () => {
    expect(sampleOf(undefined)).toBeNull();
    const deep: Record<string, unknown> = { type: 'object', required: ['a'], properties: {} };
    (deep.properties as Record<string, unknown>).a = deep;
    expect(JSON.stringify(sampleOf(deep))).toContain('null');
  });
});
