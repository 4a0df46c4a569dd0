import { describe, expect, it } from 'vitest';
import { checkJsonAnswer } from './json-answer';

const schema = {
  type: 'object',
  properties: { amount: { type: 'number', minimum: 0 }, reason: { type: 'string' } },
  required: ['amount'],
  additionalProperties: false,
};

describe('checking a JSON answer in the browser', () => {
  it('accepts data that matches the form schema', () => {
    expect(checkJsonAnswer('{"amount": 12.5, "reason": "late"}', schema)).toEqual({ ok: true, data: { amount: 12.5, reason: 'late' } });
  });

  it('names each field at fault, as the gateway would', () => {
    const check = checkJsonAnswer('{"amount": -1, "note": "x"}', schema);
    expect(check).toEqual({ ok: false, problems: ['data.note: must NOT have additional properties', 'data.amount: must be >= 0'] });
    expect(checkJsonAnswer('{}', schema)).toEqual({ ok: false, problems: ["data.amount: must have required property 'amount'"] });
    const list = { type: 'object', properties: { items: { type: 'array', items: { type: 'object', required: ['id'] } } } };
    expect(checkJsonAnswer('{"items": [{}]}', list)).toEqual({
      ok: false,
      problems: ["data.items[0].id: must have required property 'id'"],
    });
  });

  it('refuses text that is not JSON, and leaves a schema it cannot compile to the gateway', () => {
    const check = checkJsonAnswer('{amount: 1}', schema);
    expect(check.ok).toBe(false);
    expect(!check.ok && check.problems[0]).toMatch(/^data: not JSON/);
    expect(checkJsonAnswer('[1]', { type: 'no-such-type' })).toEqual({ ok: true, data: [1] });
    expect(checkJsonAnswer('"anything"', undefined)).toEqual({ ok: true, data: 'anything' });
  });

  it("checks patterns with the engine's linear-time engine, so a hostile pattern cannot freeze the tab", () => {
    const named = { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } };
    // Hours on the browser's backtracking RegExp; instant on RE2.
    expect(checkJsonAnswer(JSON.stringify({ name: `${'a'.repeat(40)}!` }), named)).toEqual({
      ok: false,
      problems: ['data.name: must match pattern "^(a+)+$"'],
    });
    expect(checkJsonAnswer('{"name": "aaa"}', named)).toEqual({ ok: true, data: { name: 'aaa' } });
    expect(checkJsonAnswer('"x"', { type: 'string', pattern: '(a)\\1' })).toEqual({ ok: true, data: 'x' });
  });
});
