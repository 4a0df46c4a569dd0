import { z } from 'zod';
import { envBoolean, envInteger, envOptional, envPositive, parseEnv } from './env-schema';

const schema = z.object({
  FLAG: envBoolean(false),
  ON: envBoolean(true),
  COUNT: envInteger(5, 1, 10),
  RATIO: envPositive(0.5),
  BUDGET: envOptional(z.coerce.number().int().positive()),
});

describe('parseEnv with the env schemas', () => {
  it('takes the defaults for unset and empty variables', () => {
    expect(parseEnv(schema, {}, 'svc')).toEqual({ FLAG: false, ON: true, COUNT: 5, RATIO: 0.5, BUDGET: undefined });
    expect(parseEnv(schema, { FLAG: '', ON: '', BUDGET: '' }, 'svc')).toMatchObject({ FLAG: false, ON: true, BUDGET: undefined });
  });

  it.each([
    ['true', true],
    ['1', true],
    ['TRUE', true],
    [' false ', false],
    ['0', false],
  ])('reads the flag %j as %s', (text, value) => {
    expect(parseEnv(schema, { FLAG: text, ON: text }, 'svc')).toMatchObject({ FLAG: value, ON: value });
  });

  it.each(['yes', 'no', 'on', 'ture', '2'])('refuses the mistyped flag %j, naming the service and the variable', (text) => {
    expect(() => parseEnv(schema, { FLAG: text }, 'runner')).toThrow(
      `invalid environment for runner: FLAG: must be true or false (1 or 0), got "${text}"`,
    );
  });

  it('refuses numbers out of their range or not whole, naming every bad variable', () => {
    expect(parseEnv(schema, { COUNT: '10', RATIO: '2.5', BUDGET: '7' }, 'svc')).toMatchObject({ COUNT: 10, RATIO: 2.5, BUDGET: 7 });
    expect(() => parseEnv(schema, { COUNT: '11', RATIO: '0', BUDGET: '1.5' }, 'svc')).toThrow(
      /^invalid environment for svc: COUNT: .*; RATIO: .*; BUDGET: /,
    );
    expect(() => parseEnv(schema, { COUNT: 'many' }, 'svc')).toThrow(/COUNT: /);
  });
});
