import { SpindleError } from '@spindle/contracts';
import { compileInput } from './input-schema';

describe('plugin JSON Schema inputs', () => {
  // A plugin's pattern meets arguments a model wrote. On JavaScript's backtracking RegExp this
  // value against ^(a+)+$ takes hours; this test finishing is the proof it runs in linear time.
  const input = compileInput(
    { type: 'object', properties: { sku: { type: 'string', pattern: '^(a+)+$' } }, required: ['sku'] },
    'plugin "shop", tool "lookup"',
    { describe: true },
  );

  it('checks a catastrophic pattern in linear time and names the field', () => {
    const error = (() => {
      try {
        return input.validate({ sku: `${'a'.repeat(40)}!` }, 'tool "lookup"');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(SpindleError);
    expect(error).toMatchObject({ code: 'validation_failed', issues: [{ field: 'sku', message: 'must match pattern "^(a+)+$"' }] });
    expect(input.validate({ sku: 'aaaa' }, 'tool "lookup"')).toEqual({ sku: 'aaaa' });
  });

  it('refuses at load a pattern the linear-time engine cannot run', () => {
    expect(() =>
      compileInput({ type: 'object', properties: { x: { type: 'string', pattern: '(a)\\1' } } }, 'plugin "shop"', { describe: false }),
    ).toThrow(/"input" is not a valid JSON Schema: .*not a valid RE2 pattern/);
  });
});
