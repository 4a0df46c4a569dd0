import { scoreConfigBodySchema, scoreConfigIssue } from './score-configs';

const config = (c: Partial<Parameters<typeof scoreConfigIssue>[0]> & { dataType: 'numeric' | 'boolean' | 'categorical' }) => ({
  min: null,
  max: null,
  categories: null,
  ...c,
});

describe('score configs', () => {
  it('lets a score with no config through unless the tenant is strict, then names the field', () => {
    expect(scoreConfigIssue(undefined, false, 'tone', 'warm')).toBeUndefined();
    expect(scoreConfigIssue(undefined, true, 'tone', 'warm')).toEqual({
      field: 'name',
      message: 'no score config declares "tone", and this tenant\'s scores are strict',
    });
  });

  it('refuses another kind, a number outside the range and a label not listed', () => {
    const range = config({ dataType: 'numeric', min: 0, max: 1 });
    expect([0, 0.5, 1].map((v) => scoreConfigIssue(range, true, 'helpful', v))).toEqual([undefined, undefined, undefined]);
    expect(scoreConfigIssue(range, true, 'helpful', 1.5)).toEqual({ field: 'value', message: '"helpful" is at most 1' });
    expect(scoreConfigIssue(range, true, 'helpful', -0.1)).toEqual({ field: 'value', message: '"helpful" is at least 0' });
    expect(scoreConfigIssue(range, true, 'helpful', true)).toEqual({ field: 'value', message: '"helpful" is numeric, not boolean' });
    const tone = config({ dataType: 'categorical', categories: ['warm', 'cold'] });
    expect(scoreConfigIssue(tone, false, 'tone', 'warm')).toBeUndefined();
    expect(scoreConfigIssue(tone, false, 'tone', 'hot')).toEqual({ field: 'value', message: '"tone" is one of "warm", "cold"' });
  });

  it('refuses a config that contradicts itself, naming the field', () => {
    const fields = (body: unknown) => {
      const result = scoreConfigBodySchema.safeParse(body);
      return result.success ? [] : result.error.issues.map((i) => i.path.join('.'));
    };
    expect(fields({ dataType: 'numeric', min: 0, max: 1 })).toEqual([]);
    expect(fields({ dataType: 'numeric', min: 2, max: 1 })).toEqual(['max']);
    expect(fields({ dataType: 'boolean', min: 0 })).toEqual(['min']);
    expect(fields({ dataType: 'categorical' })).toEqual(['categories']);
    expect(fields({ dataType: 'categorical', categories: ['a', 'a'] })).toEqual(['categories']);
    expect(fields({ dataType: 'numeric', categories: ['a'] })).toEqual(['categories']);
  });
});
