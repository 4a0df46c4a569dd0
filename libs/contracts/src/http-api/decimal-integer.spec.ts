import { MAX_SEQ, MAX_VERSION, parseDecimalInteger, queryInteger } from './decimal-integer';

describe('parseDecimalInteger', () => {
  const seq = { min: 0, max: MAX_SEQ };

  it('takes plain decimal digits within the range', () => {
    expect(parseDecimalInteger('0', seq)).toBe(0);
    expect(parseDecimalInteger('42', seq)).toBe(42);
    expect(parseDecimalInteger(String(MAX_SEQ), seq)).toBe(MAX_SEQ);
    expect(parseDecimalInteger(String(MAX_VERSION), { min: 1, max: MAX_VERSION })).toBe(MAX_VERSION);
  });

  it('refuses every other spelling Number() would accept', () => {
    for (const text of ['0x10', '1e3', '1.0', '1.5', '+1', '-1', ' 7', '7 ', '01', '', 'Infinity', 'NaN', '0b1', '0o7', '1_000', '١٢']) {
      expect({ text, value: parseDecimalInteger(text, seq) }).toEqual({ text, value: undefined });
    }
  });

  it('refuses values outside the range, and more than 16 digits before converting them', () => {
    expect(parseDecimalInteger(String(MAX_SEQ + 1), seq)).toBeUndefined();
    expect(parseDecimalInteger('9'.repeat(17), seq)).toBeUndefined();
    expect(parseDecimalInteger('99999999999', { min: 1, max: MAX_VERSION })).toBeUndefined();
    expect(parseDecimalInteger('0', { min: 1, max: 200 })).toBeUndefined();
    expect(parseDecimalInteger('201', { min: 1, max: 200 })).toBeUndefined();
  });
});

describe('queryInteger', () => {
  const limit = queryInteger({ min: 1, max: 200 });

  it('agrees with parseDecimalInteger and says why it refused', () => {
    expect(limit.parse('50')).toBe(50);
    expect(limit.safeParse('1e3').error?.issues[0].message).toMatch(/decimal integer/);
    expect(limit.safeParse('0x10').success).toBe(false);
    expect(limit.safeParse('201').error?.issues[0].message).toMatch(/200/);
    expect(limit.safeParse(['1', '2']).success).toBe(false);
  });
});
